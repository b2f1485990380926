import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { RunsView } from '../../src/state/run-summary.js';
import { FAST, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';
import { runCliKilledAfterStart } from './run-cli-killable.js';

/**
 * Issue 20 item 7: paid jobs left open by a crashed run are not orphaned silently. After kill -9 of run
 * k1 with 4 of its 8 jobs open, `runs` counts its 8 jobs and both `runs` and the apply of run k2 name
 * k1 with the exact command that finishes it; following that command pays for nothing new.
 */
describe('runs left unfinished by a crash (built binary)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    // Jobs of ~2 s: still open when the first apply is killed right after its fourth create.
    simulator = await startSimulator({ timeScale: 0.005, jobDurationMs: { image: 400_000 } });
    env = simulatorEnv(simulator);
  });
  afterAll(() => simulator.close());

  const creates = () => simulator.stats().jobsCreated;

  it('names run k1 and its open jobs in runs and in the next apply, with a command that finishes them', async () => {
    const dir = await makeWorkDir('unfinished');
    const { file: manifest, jobIds } = await writeImageMatrixManifest(dir, {
      name: 'crashy',
      subjects: ['fox', 'owl', 'heron', 'lynx'],
      styles: ['ink', 'oil'],
    });
    expect(jobIds).toHaveLength(8);
    const stateDir = join(dir, 'state');
    const where = ['--state-dir', stateDir];

    // Killed a moment after its fourth create: the answers are journaled, the jobs (2 s each) still run.
    const killed = await runCliKilledAfterStart(
      ['apply', manifest, '--run', 'k1', ...where, '--output', join(dir, 'out-k1'), '--yes', ...FAST],
      300,
      () => creates() >= 4,
      { env, cwd: dir },
    );
    expect(killed.killed, killed.stderr).toBe(true);
    expect(creates()).toBe(4);

    const runs = await runCli(['runs', manifest, ...where, '--json'], { env, cwd: dir });
    expect(runs.code, runs.stderr).toBe(0);
    const [k1] = (JSON.parse(runs.stdout) as RunsView).runs;
    // Its 4 jobs are open (a job id kept) or, had the kill come first, creating (the answer not kept).
    expect((k1?.counts.open ?? 0) + (k1?.counts.creating ?? 0)).toBe(4);
    expect(k1).toMatchObject({
      runId: 'k1',
      counts: { jobs: 8, pending: 4 },
      outputDir: join(dir, 'out-k1'),
      unfinished: { open: 4, undownloaded: 0 },
    });
    expect(runs.stderr).toMatch(/run "k1" has 4 paid jobs still open/);
    const table = await runCli(['runs', manifest, ...where], { env, cwd: dir });
    expect(table.stdout).toMatch(/^k1 .* 1 +8 +.*pending 4 /m);

    // Run k2 (one job) says what k1 left, and how to finish it.
    const k2 = await runCli(
      ['apply', manifest, '--run', 'k2', ...where, '--only', 'img-fox-ink', '--yes', ...FAST],
      {
        env,
        cwd: dir,
      },
    );
    expect(k2.code, k2.stderr).toBe(0);
    expect(creates()).toBe(5);
    const hint =
      /run "k1" has 4 paid jobs still open.*7 days.*Finish it with: (runner apply .*?) \(follows them/.exec(
        k2.stderr,
      );
    expect(hint, k2.stderr).not.toBeNull();
    const command = hint?.[1] ?? '';
    expect(command).toContain(`--state-dir ${stateDir}`);
    expect(command).toContain(`--output ${join(dir, 'out-k1')}`);
    expect(command).toContain('--max-credits 0');

    // Following it (as typed, plus the test's fast polling) finishes k1's open jobs and creates nothing.
    const finish = await runCli([...command.split(' ').slice(1), ...FAST], { env, cwd: dir });
    expect(finish.code, finish.stderr).toBe(0);
    expect(creates()).toBe(5);
    expect((await readdir(join(dir, 'out-k1'))).filter((file) => file.endsWith('.png'))).toHaveLength(4);

    const after = await runCli(['runs', manifest, ...where, '--json'], { env, cwd: dir });
    expect(after.stderr).not.toContain('still open');
    const k1After = (JSON.parse(after.stdout) as RunsView).runs.find((run) => run.runId === 'k1');
    expect(k1After).toMatchObject({ counts: { jobs: 8, done: 4, pending: 4 }, unfinished: { open: 0 } });
  });

  it('names a run whose results were not downloaded, and --download-only fetches them creating nothing', async () => {
    const dir = await makeWorkDir('undownloaded');
    const { file: manifest } = await writeImageMatrixManifest(dir, {
      name: 'owed',
      subjects: ['fox', 'owl'],
      styles: ['ink'],
    });
    // Result links that refuse the download: both jobs are done and paid, their files owed.
    simulator.setHostile({ resultStatus: 403 });
    const first = await runCli(['apply', manifest, '--run', 'u1', '--yes', ...FAST], { env, cwd: dir });
    simulator.setHostile({});
    expect(first.code).toBe(1);
    const made = creates();

    const second = await runCli(
      ['apply', manifest, '--run', 'u2', '--only', 'img-fox-ink', '--yes', ...FAST],
      {
        env,
        cwd: dir,
      },
    );
    expect(second.code, second.stderr).toBe(0);
    const hint =
      /run "u1" has 2 done jobs with results not downloaded.*Finish it with: (runner apply .*?--download-only)/.exec(
        second.stderr,
      );
    expect(hint, second.stderr).not.toBeNull();
    const finish = await runCli([...(hint?.[1] ?? '').split(' ').slice(1), ...FAST], { env, cwd: dir });
    expect(finish.code, finish.stderr).toBe(0);
    expect(creates()).toBe(made + 1);
    const u1Dir = join(dir, 'runner-output', 'owed', 'u1');
    expect((await readdir(u1Dir)).filter((file) => file.endsWith('.png')).sort()).toEqual([
      'img-fox-ink.png',
      'img-owl-ink.png',
    ]);
    const runs = await runCli(['runs', manifest], { env, cwd: dir });
    expect(runs.stderr).not.toContain('not downloaded');
  });
});
