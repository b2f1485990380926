import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { simulatorEnv, writeApplyWorkspace } from './apply-fixtures.js';
import { runCli } from './run-cli.js';
import { stateBackends, useStateBackend } from './state-backends.js';

/** Makes `dir` a git checkout whose `origin` is `remote`, as `git clone` leaves `.git/config`. */
async function cloneOf(dir: string, remote: string): Promise<void> {
  await mkdir(join(dir, '.git'), { recursive: true });
  await writeFile(
    join(dir, '.git', 'config'),
    `[core]\n\trepositoryformatversion = 0\n[remote "origin"]\n\turl = ${remote}\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n`,
  );
}

/**
 * Two repositories whose manifests share `name:` and a run id, on one shared state (#31.13): the second
 * is refused before anything is sent (exit 2), naming both projects and how to separate them. A run
 * recorded before runs named their project goes on; `project:` in runner.config.yaml names it.
 */
describe.each(stateBackends())('two repositories on one run, state in %s', (backend) => {
  const states = useStateBackend(backend, { leaseTtlMs: 30_000 });

  it('the second repository is refused with exit 2 and creates nothing', async () => {
    const simulator = await startSimulator({ timeScale: 0.005, seed: 5 });
    const a = await writeApplyWorkspace(`proj-a-${backend}`, {
      name: 'shared',
      subjects: ['fox'],
      styles: ['ink'],
    });
    const b = await writeApplyWorkspace(`proj-b-${backend}`, {
      name: 'shared',
      subjects: ['fox'],
      styles: ['ink'],
    });
    try {
      await cloneOf(a.dir, 'git@github.com:team-a/images.git');
      await cloneOf(b.dir, 'https://github.com/team-b/images');
      const place = await states.place(join(a.dir, 'shared-state'), 'shared');
      const env = { ...simulatorEnv(simulator), ...place.env };
      const first = await runCli([...a.apply, ...place.args], { env, timeoutMs: 60_000 });
      expect(first.code, first.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(1);

      const other = await runCli([...b.apply, ...place.args], { env, timeoutMs: 60_000 });
      expect(other.code, other.stderr).toBe(2);
      expect(other.stderr).toContain('belongs to project "github.com/team-a/images:shared.yaml"');
      expect(other.stderr).toContain('this manifest is of project "github.com/team-b/images:shared.yaml"');
      expect(other.stderr).toMatch(/--run id/);
      expect(simulator.stats().jobsCreated).toBe(1);

      // A clone of A by another URL form is A.
      await cloneOf(b.dir, 'ssh://git@GitHub.com/team-a/images.git/');
      const same = await runCli([...b.apply, ...place.args], { env, timeoutMs: 60_000 });
      expect(same.code, same.stderr).toBe(0);
      // B names itself A's project in runner.config.yaml: it is that project.
      await cloneOf(b.dir, 'https://github.com/team-b/images');
      await writeFile(join(b.dir, 'runner.config.yaml'), 'project: github.com/team-a/images:shared.yaml\n');
      const named = await runCli([...b.apply, ...place.args], { env, timeoutMs: 60_000 });
      expect(named.code, named.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(1);
    } finally {
      await simulator.close();
      await rm(a.dir, { recursive: true, force: true });
      await rm(b.dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a run recorded without a project (an earlier release, or outside git) goes on, then names one', async () => {
    const simulator = await startSimulator({ timeScale: 0.005, seed: 6 });
    const a = await writeApplyWorkspace(`proj-old-${backend}`, {
      name: 'old',
      subjects: ['fox', 'owl'],
      styles: ['ink'],
    });
    const b = await writeApplyWorkspace(`proj-new-${backend}`, {
      name: 'old',
      subjects: ['fox', 'owl'],
      styles: ['ink'],
    });
    try {
      const place = await states.place(join(a.dir, 'shared-state'), 'old');
      const env = { ...simulatorEnv(simulator), ...place.env };
      // Outside a git checkout: the run record names no project, as before #31.13.
      const old = await runCli([...a.apply, '--only', 'img-fox-ink', ...place.args], {
        env,
        timeoutMs: 60_000,
      });
      expect(old.code, old.stderr).toBe(0);
      expect((await place.records()).filter((line) => line.type === 'run')).toHaveLength(1);
      expect(JSON.stringify(await place.records())).not.toContain('"project"');

      await cloneOf(a.dir, 'git@github.com:team-a/images.git');
      const resumed = await runCli([...a.apply, ...place.args], { env, timeoutMs: 60_000 });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(2);
      // From now on the run is A's.
      await cloneOf(b.dir, 'git@github.com:team-b/images.git');
      const other = await runCli([...b.apply, ...place.args], { env, timeoutMs: 60_000 });
      expect(other.code, other.stderr).toBe(2);
      expect(simulator.stats().jobsCreated).toBe(2);
    } finally {
      await simulator.close();
      await rm(a.dir, { recursive: true, force: true });
      await rm(b.dir, { recursive: true, force: true });
    }
  }, 120_000);
});
