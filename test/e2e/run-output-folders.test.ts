import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { StatusView } from '../../src/state/status-view.js';
import { FAST_YES, hashFile, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/** Every file under `dir` (relative paths), hidden ones included. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

/**
 * Issue 20 item 5 (and issue 24's last paragraph): each run writes its own output folder, recorded in
 * its state and used by `status` and `report`; no run overwrites or moves a file another run recorded.
 */
describe('a folder of its own for each run (built binary)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: 0.005 });
    env = simulatorEnv(simulator);
  });
  afterAll(() => simulator.close());

  const creates = () => simulator.stats().jobsCreated;

  async function status(
    manifest: string,
    run: string,
    cwd: string,
  ): Promise<StatusView & { outputDir?: string }> {
    const result = await runCli(['status', manifest, '--run', run, '--json'], { env, cwd });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as StatusView & { outputDir?: string };
  }

  it('by default, runs n1 and n3 write runner-output/<pipeline>/<run>/ and n3 changes nothing of n1', async () => {
    const dir = await makeWorkDir('own-folder');
    const { file: manifest } = await writeImageMatrixManifest(dir, {
      name: 'nightly',
      subjects: ['latte', 'mocha'],
      styles: ['watercolor'],
    });
    const first = await runCli(['apply', manifest, ...FAST_YES, '--run', 'n1'], { env, cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const n1Dir = join(dir, 'runner-output', 'nightly', 'n1');
    const n1Files = await listFiles(n1Dir);
    expect(n1Files).toEqual(
      expect.arrayContaining(['img-latte-watercolor.png', 'results.json', 'report.html']),
    );
    const n1Hash = await hashFile(join(n1Dir, 'img-latte-watercolor.png'));
    const n1Index = await readFile(join(n1Dir, 'results.json'), 'utf8');

    const third = await runCli(['apply', manifest, ...FAST_YES, '--run', 'n3'], { env, cwd: dir });
    expect(third.code, third.stderr).toBe(0);
    const n3Dir = join(dir, 'runner-output', 'nightly', 'n3');
    expect(third.stdout).toContain(`Results: ${n3Dir}`);
    expect(await hashFile(join(n3Dir, 'img-latte-watercolor.png'))).not.toBe(n1Hash);
    // Night one's files and index are as it left them.
    expect(await listFiles(n1Dir)).toEqual(n1Files);
    expect(await hashFile(join(n1Dir, 'img-latte-watercolor.png'))).toBe(n1Hash);
    expect(await readFile(join(n1Dir, 'results.json'), 'utf8')).toBe(n1Index);

    const n1 = await status(manifest, 'n1', dir);
    expect(n1.outputDir).toBe(n1Dir);
    for (const job of n1.jobs)
      for (const file of job.files) expect(file.file.startsWith(`${n1Dir}/`)).toBe(true);

    // `report --run n1` writes beside n1's files and links to them, whatever --output says now.
    const report = await runCli(['report', manifest, '--run', 'n1', '--output', 'elsewhere'], {
      env,
      cwd: dir,
    });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stderr).toContain('--output elsewhere is ignored');
    expect(report.stdout).toContain(join('runner-output', 'nightly', 'n1', 'report.html'));
    const html = await readFile(join(n1Dir, 'report.html'), 'utf8');
    expect(html).toContain('"href":"img-latte-watercolor.png"');
    expect(existsSync(join(dir, 'elsewhere'))).toBe(false);
  });

  it('report and status use the --output the run used, and a resume without --output stays there', async () => {
    const dir = await makeWorkDir('recorded-output');
    const { file: manifest } = await writeImageMatrixManifest(dir, {
      name: 'recorded',
      subjects: ['fox'],
      styles: ['ink', 'oil'],
    });
    const first = await runCli(
      ['apply', manifest, ...FAST_YES, '--run', 'night1', '--output', 'out-n1', '--only', 'img-fox-ink'],
      { env, cwd: dir },
    );
    expect(first.code, first.stderr).toBe(0);
    // The resume hint as a user might type it: no --output. The run stays in out-n1.
    const resumed = await runCli(['apply', manifest, ...FAST_YES, '--run', 'night1'], { env, cwd: dir });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await listFiles(join(dir, 'out-n1'))).toEqual(
      expect.arrayContaining(['img-fox-ink.png', 'img-fox-oil.png', 'results.json', 'report.html']),
    );
    expect(existsSync(join(dir, 'runner-output'))).toBe(false);
    expect((await status(manifest, 'night1', dir)).outputDir).toBe(join(dir, 'out-n1'));

    const report = await runCli(['report', manifest, '--run', 'night1'], { env, cwd: dir });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toBe(`Report: ${join('out-n1', 'report.html')}\n`);
  });

  it('refuses, before paying, a run that would write into the --output folder of another run', async () => {
    const dir = await makeWorkDir('shared-output');
    const { file: manifest } = await writeImageMatrixManifest(dir, {
      name: 'shared',
      subjects: ['owl'],
      styles: ['ink'],
    });
    const first = await runCli(['apply', manifest, ...FAST_YES, '--run', 'a', '--output', 'out'], {
      env,
      cwd: dir,
    });
    expect(first.code, first.stderr).toBe(0);
    const before = await listFiles(join(dir, 'out'));
    const hash = await hashFile(join(dir, 'out', 'img-owl-ink.png'));
    const made = creates();

    const second = await runCli(['apply', manifest, ...FAST_YES, '--run', 'b', '--output', 'out'], {
      env,
      cwd: dir,
    });
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      /output folder .*out cannot be used by this run: it holds the results of run "a"/,
    );
    expect(second.stderr).toContain('Nothing was created or paid.');
    expect(creates()).toBe(made);
    expect(await listFiles(join(dir, 'out'))).toEqual(before);
    expect(await hashFile(join(dir, 'out', 'img-owl-ink.png'))).toBe(hash);

    // The same run id from another state folder is another run too.
    const other = await runCli(
      ['apply', manifest, ...FAST_YES, '--run', 'a', '--output', 'out', '--state-dir', 'other-state'],
      { env, cwd: dir },
    );
    expect(other.code).toBe(2);
    expect(creates()).toBe(made);
  });

  it('refuses a folder where a run of an earlier release (no claim, no recorded folder) saved its files', async () => {
    const dir = await makeWorkDir('legacy-output');
    const { file: manifest } = await writeImageMatrixManifest(dir, {
      name: 'legacy',
      subjects: ['elk'],
      styles: ['ink'],
    });
    const old = await runCli(['apply', manifest, ...FAST_YES, '--run', 'old', '--output', 'shared'], {
      env,
      cwd: dir,
    });
    expect(old.code, old.stderr).toBe(0);
    // As an earlier release left it: no claim file, no folder in the run record, no snapshot.
    const runDir = join(dir, '.runner', 'legacy', 'old');
    await rm(join(dir, 'shared', '.runner-run.json'));
    await rm(join(runDir, 'snapshot.jsonl'), { force: true });
    const journal = await readFile(join(runDir, 'journal.jsonl'), 'utf8');
    // (and each file by its absolute path: the journal records keys relative to the folder since #30.1)
    await writeFile(
      join(runDir, 'journal.jsonl'),
      journal
        .replace(/,"outputDir":"[^"]*"/g, '')
        .replace(
          /"file":"([^"/]+)"/g,
          (_, name: string) => `"file":${JSON.stringify(join(dir, 'shared', name))}`,
        ),
    );
    const hash = await hashFile(join(dir, 'shared', 'img-elk-ink.png'));
    const made = creates();

    const next = await runCli(['apply', manifest, ...FAST_YES, '--run', 'new', '--output', 'shared'], {
      env,
      cwd: dir,
    });
    expect(next.code).toBe(2);
    expect(next.stderr).toMatch(/holds files recorded by run "old"/);
    expect(creates()).toBe(made);
    expect(await hashFile(join(dir, 'shared', 'img-elk-ink.png'))).toBe(hash);
    // Its own folder (the default) is fine.
    const own = await runCli(['apply', manifest, ...FAST_YES, '--run', 'new'], { env, cwd: dir });
    expect(own.code, own.stderr).toBe(0);
  });

  it('lets each night of CI use the same --output when the folder is new each time (state restored)', async () => {
    const dir = await makeWorkDir('ci-nights');
    const { file: manifest } = await writeImageMatrixManifest(dir, {
      name: 'ci',
      subjects: ['owl'],
      styles: ['oil'],
    });
    const night = (run: string) =>
      runCli(['apply', manifest, ...FAST_YES, '--run', run, '--output', 'out', '--state-dir', 'cache'], {
        env,
        cwd: dir,
      });
    expect((await night('1')).code).toBe(0);
    // The next night's checkout: no output folder, the state from the cache, a plan written first.
    await rm(join(dir, 'out'), { recursive: true });
    await mkdir(join(dir, 'out'));
    await writeFile(join(dir, 'out', 'plan.md'), '# plan');
    const second = await night('2');
    expect(second.code, second.stderr).toBe(0);
    expect(await listFiles(join(dir, 'out'))).toEqual(expect.arrayContaining(['plan.md', 'img-owl-oil.png']));
  });

  it("--replace in one run moves only that run's own file to .superseded, never another run's", async () => {
    const dir = await makeWorkDir('replace-other-run');
    const { file: manifest } = await writeImageMatrixManifest(dir, {
      name: 'replace',
      subjects: ['latte'],
      styles: ['watercolor'],
    });
    const id = 'img-latte-watercolor';
    for (const run of ['n1', 'n3']) {
      const result = await runCli(['apply', manifest, ...FAST_YES, '--run', run], { env, cwd: dir });
      expect(result.code, result.stderr).toBe(0);
    }
    const n1Dir = join(dir, 'runner-output', 'replace', 'n1');
    const n3Dir = join(dir, 'runner-output', 'replace', 'n3');
    const n1Files = await listFiles(n1Dir);
    const n1Hash = await hashFile(join(n1Dir, `${id}.png`));
    const n3Hash = await hashFile(join(n3Dir, `${id}.png`));

    const replaced = await runCli(['apply', manifest, ...FAST_YES, '--run', 'n3', '--replace', id], {
      env,
      cwd: dir,
    });
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(await listFiles(n1Dir)).toEqual(n1Files);
    expect(await hashFile(join(n1Dir, `${id}.png`))).toBe(n1Hash);
    expect(await hashFile(join(n3Dir, '.superseded', 'attempt-1', `${id}.png`))).toBe(n3Hash);
  });
});

/**
 * Issue 20 item 6 (and the item 10 bullets on /proc and `.runner/`): the result files written after a
 * run are checked before anything is paid; one that cannot be written is an error in the exit code.
 */
describe('result files checked before paying (built binary)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let manifest: string;

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: 0.005 });
    env = simulatorEnv(simulator);
    dir = await makeWorkDir('result-files');
    manifest = (await writeImageMatrixManifest(dir, { name: 'results', subjects: ['fox'], styles: ['ink'] }))
      .file;
    await writeFile(join(dir, 'a-file'), 'not a folder');
  });
  afterAll(() => simulator.close());

  const creates = () => simulator.stats().jobsCreated;

  it.each([
    ['--junit under a file', ['--junit', 'a-file/junit.xml'], /--junit .*a-file\/junit.xml: cannot be made/],
    ['--junit that is a folder', ['--junit', '.'], /--junit .*: is a folder, a file is expected/],
    ['--report that is a device', ['--report', '/dev/null'], /--report \/dev\/null: is not a regular file/],
    ['--report under a file', ['--report', 'a-file/r.html'], /--report .*a-file\/r.html: cannot be made/],
    [
      '--junit under /proc',
      ['--junit', '/proc/runner-test/junit.xml'],
      /--junit .*: cannot be made: \/proc is on the proc file system/,
    ],
    [
      '--output under /proc',
      ['--output', '/proc/runner-test/out'],
      /--output .*: cannot be made: \/proc is on the proc/,
    ],
    [
      '--state-dir under /proc',
      ['--state-dir', '/proc/runner-test/state'],
      /--state-dir .*: cannot be made: \/proc is on the proc/,
    ],
  ])('refuses %s with exit 2, creating nothing', async (_name, flags, message) => {
    const before = creates();
    const result = await runCli(['apply', manifest, ...FAST_YES, '--run', 'refused', ...flags], {
      env,
      cwd: dir,
      timeoutMs: 20_000,
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('Nothing was created or paid.');
    expect(creates()).toBe(before);
    expect(existsSync(join(dir, '.runner', 'results', 'refused'))).toBe(false);
  });

  it('refuses a manifest `report:` under a file before paying', async () => {
    const sub = join(dir, 'with-report');
    await mkdir(sub);
    await writeFile(join(sub, 'blocker'), 'x');
    const file = join(sub, 'm.yaml');
    await writeFile(
      file,
      (await readFile(manifest, 'utf8')).replace('jobs:', 'report: blocker/r.html\njobs:'),
    );
    const before = creates();
    const result = await runCli(['apply', file, ...FAST_YES], { env, cwd: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/report .*blocker\/r.html: cannot be made/);
    expect(creates()).toBe(before);
  });

  it('a result file that cannot be written after the run: exit 1, a clear error, the rest written, no .tmp', async () => {
    // --junit under the results index's own name: the preflight makes `results.json/` a folder for it,
    // so the index cannot be written after the run (a failure the preflight cannot foresee).
    const out = join(dir, 'late-failure');
    const result = await runCli(
      [
        'apply',
        manifest,
        ...FAST_YES,
        '--run',
        'late',
        '--output',
        out,
        '--junit',
        join(out, 'results.json', 'junit.xml'),
      ],
      { env, cwd: dir },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/error: could not write .*late-failure\/results.json: .*(EISDIR|folder)/);
    expect(result.stderr).not.toContain('internal error');
    const files = await listFiles(out);
    expect(files).toEqual(
      expect.arrayContaining([
        'results.csv',
        'report.html',
        'img-fox-ink.png',
        join('results.json', 'junit.xml'),
      ]),
    );
    expect(files.filter((file) => file.endsWith('.tmp'))).toEqual([]);
  });

  it('init under /proc is refused at once, not a mkdir that never ends', async () => {
    const result = await runCli(
      ['init', '/proc/runner-test/new.yaml', '--model', 'chatgpt-image-sangtao', '--simulate'],
      { cwd: dir, timeoutMs: 20_000 },
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /manifest \/proc\/runner-test\/new.yaml: cannot be made: \/proc is on the proc/,
    );
  });

  it('apply --state-dir makes nothing beside the manifest', async () => {
    const sub = join(dir, 'no-dot-runner');
    await mkdir(sub);
    const file = join(sub, 'm.yaml');
    await writeFile(file, await readFile(manifest, 'utf8'));
    const result = await runCli(['apply', file, ...FAST_YES, '--state-dir', join(dir, 'elsewhere-state')], {
      env,
      cwd: dir,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(sub, '.runner'))).toBe(false);
  });
});
