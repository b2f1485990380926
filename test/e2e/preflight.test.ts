import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import {
  FAST_YES,
  isRunIndexFile,
  makeWorkDir,
  simulatorEnv,
  writeImageMatrixManifest,
} from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * Issue #7.6: every path apply or plan will write is checked before the first create. Tests run as
 * root, whom permission bits do not stop, so the unusable paths here are a file where a folder is
 * expected and a path under a regular file (ENOTDIR); a folder without write permission is covered
 * by the same code path but cannot be provoked as root.
 */
describe('preflight of the paths a run writes (built binary)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let manifest: string;
  let aFile: string;
  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: 0.005 });
    env = simulatorEnv(simulator);
    dir = await makeWorkDir('preflight');
    manifest = (
      await writeImageMatrixManifest(dir, { name: 'preflight', subjects: ['fox'], styles: ['ink'] })
    ).file;
    aFile = join(dir, 'a-file');
    await writeFile(aFile, 'not a folder');
  });
  afterAll(() => simulator.close());

  const creates = () => simulator.stats().jobsCreated;

  it.each([
    [
      '--output under a file',
      ['--output', 'a-file/out'],
      /--output .*a-file\/out: cannot be made: .*a-file is a file/,
    ],
    [
      '--state-dir that is a file',
      ['--state-dir', 'a-file'],
      /--state-dir .*a-file: is a file, a folder is expected/,
    ],
    [
      '--log-file under a file',
      ['--log-file', 'a-file/apply.log'],
      /--log-file .*a-file\/apply.log: cannot be made/,
    ],
    ['--log-file that is a folder', ['--log-file', '.'], /--log-file .*: is a folder, a file is expected/],
  ])('refuses %s with exit 2 and creates nothing', async (_name, flags, message) => {
    const before = creates();
    const result = await runCli(['apply', manifest, ...FAST_YES, ...flags], { env, cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Nothing was created or paid.');
    expect(result.stderr).not.toContain('internal error');
    expect(creates()).toBe(before);
  });

  it('reports every unusable path at once', async () => {
    const result = await runCli(
      ['apply', manifest, ...FAST_YES, '--output', 'a-file/out', '--log-file', 'a-file/x.log'],
      { env, cwd: dir },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('2 paths it must write cannot be used');
    expect(result.stderr).toMatch(/--log-file/);
    expect(result.stderr).toMatch(/--output/);
  });

  it("checks the manifest's output folder and the default state folder before the first create", async () => {
    const sub = join(dir, 'sub');
    await mkdir(sub, { recursive: true });
    const file = join(sub, 'p.yaml');
    await writeFile(
      file,
      `version: 1\nname: p\noutput: ../a-file/results\njobs:\n  - id: one\n    kind: image\n    model: chatgpt-image-sangtao\n    prompt: A detailed ink picture of a fox standing in a misty forest at dawn\n`,
    );
    await writeFile(join(sub, '.runner'), 'a file where the state folder goes');
    const before = creates();
    const result = await runCli(['apply', file, ...FAST_YES], { env, cwd: dir });
    expect(result.code).toBe(2);
    // The manifest's `output:` is shared by its runs: each has a folder in it.
    expect(result.stderr).toMatch(/output folder .*a-file\/results\/default: cannot be made/);
    expect(result.stderr).toMatch(/state folder .*\.runner\/p\/default: cannot be made/);
    expect(creates()).toBe(before);
  });

  it('makes missing folders and runs when every path is usable', async () => {
    const result = await runCli(
      ['apply', manifest, ...FAST_YES, '--output', 'new/out', '--log-file', 'logs/deep/apply.log'],
      { env, cwd: dir },
    );
    expect(result.code).toBe(0);
    const written = await readdir(join(dir, 'new', 'out'));
    // thumbnails/: the result's thumbnail (see isRunIndexFile for the files in it).
    expect(written.filter((file) => !isRunIndexFile(file) && file !== 'thumbnails')).toEqual([
      'img-fox-ink.png',
    ]);
    expect(await readdir(join(dir, 'logs', 'deep'))).toEqual(['apply.log']);
  });

  it('checks plan --out and GITHUB_STEP_SUMMARY before asking the service anything', async () => {
    const requests = () => Object.values(simulator.stats().requests).reduce((sum, n) => sum + n, 0);
    const before = requests();
    const out = await runCli(['plan', manifest, '--out', 'a-file/plan.md'], { env, cwd: dir });
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(/--out .*a-file\/plan.md: cannot be made/);
    const summary = await runCli(['plan', manifest], { env: { ...env, GITHUB_STEP_SUMMARY: dir }, cwd: dir });
    expect(summary.code).toBe(2);
    expect(summary.stderr).toMatch(/GITHUB_STEP_SUMMARY .*: is a folder, a file is expected/);
    expect(requests()).toBe(before);
  });
});
