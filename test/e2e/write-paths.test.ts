import { chmod, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const MANIFEST = `version: 1
name: paths
jobs:
  - id: hero
    kind: image
    model: chatgpt-image-sangtao
    prompt: A watercolor advertisement of a latte on a wooden table
`;

/** Issue #24.9: files the runner writes at paths the user (or the CI runner) names. */
describe('write paths (built binary)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  async function setup() {
    const sim = (simulator = await startSimulator({ timeScale: 0.005 }));
    const dir = await makeWorkDir('paths');
    const file = join(dir, 'pipeline.yaml');
    await writeFile(file, MANIFEST);
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'keep me\n');
    return { sim, dir, file, victim, env: simulatorEnv(sim) };
  }

  it('refuses plan --out and --log-file that are symbolic links (exit 2), writing nothing through them', async () => {
    const { dir, file, victim, env } = await setup();
    const link = join(dir, 'link');
    await symlink(victim, link);
    for (const args of [
      ['plan', file, '--out', link],
      ['plan', file, '--format', 'json', '--out', link],
      ['plan', file, '--log-file', link],
      ['validate', file, '--log-file', link],
    ]) {
      const result = await runCli(args, { env });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toContain(`${link}`);
      expect(result.stderr).toMatch(/link:? is a symbolic link: the runner does not write through links/);
      expect(await readFile(victim, 'utf8')).toBe('keep me\n');
    }
  });

  it("creates GITHUB_STEP_SUMMARY with mode 0600, and leaves an existing file's mode alone", async () => {
    const { dir, file, env } = await setup();
    const created = join(dir, 'summary-new.md');
    const plan = await runCli(['plan', file], { env: { ...env, GITHUB_STEP_SUMMARY: created } });
    expect(plan.code, plan.stderr).toBe(0);
    expect((await stat(created)).mode & 0o777).toBe(0o600);

    const applied = join(dir, 'summary-apply.md');
    const apply = await runCli(
      ['apply', file, ...FAST_YES, '--state-dir', join(dir, 'state'), '--output', join(dir, 'out')],
      { env: { ...env, GITHUB_STEP_SUMMARY: applied } },
    );
    expect(apply.code, apply.stderr).toBe(0);
    expect((await stat(applied)).mode & 0o777).toBe(0o600);

    const existing = join(dir, 'summary-old.md');
    await writeFile(existing, '# earlier step\n');
    await chmod(existing, 0o644);
    const again = await runCli(['plan', file], { env: { ...env, GITHUB_STEP_SUMMARY: existing } });
    expect(again.code, again.stderr).toBe(0);
    expect((await stat(existing)).mode & 0o777).toBe(0o644);
    expect(await readFile(existing, 'utf8')).toMatch(/^# earlier step\n## Plan `paths`/);
  });
});
