import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { StatusView } from '../../src/state/status-view.js';
import { FAST_YES, IMAGE_MODEL, listFilesDeep, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const RUN = ['--run', 'night-1'];
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A checkout: the manifest of three images, its state in `.runner/` beside it. */
async function checkout(dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, 'nightly.yaml');
  await writeFile(
    file,
    [
      'version: 1',
      'name: nightly',
      'defaults:',
      '  kind: image',
      `  model: ${IMAGE_MODEL}`,
      '  params: { format: png }',
      'jobs:',
      ...['fox', 'owl', 'heron'].flatMap((subject) => [
        `  - id: ${subject}`,
        `    prompt: A detailed ink picture of a ${subject} standing in a misty forest at dawn`,
      ]),
      '',
    ].join('\n'),
  );
  return file;
}

/** What the service serves at each result link now (read by the test, not by the runner). */
async function servedHashes(index: ResultsIndex): Promise<Map<string, string>> {
  const served = new Map<string, string>();
  for (const row of index.results) {
    if (row.resultUrl === undefined) continue;
    const answer = await fetch(row.resultUrl);
    served.set(row.resultUrl, sha256(new Uint8Array(await answer.arrayBuffer())));
  }
  return served;
}

/**
 * Issue #30.1/#30.2: a CI re-run on a fresh runner restores only the state (the Actions cache) and the
 * checkout; the first machine's output folder is gone. The run's results are found missing in this
 * machine's own output folder and fetched again from the service: no job created, every file with the
 * service's bytes, a report and results.json without a missing image; an expired link is reported with
 * when and where the result was saved, and `status` exits 1 while a result is missing here.
 */
describe('results that outlive their machine', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'a CI re-run on a fresh runner fetches every result again with 0 creates',
    { timeout: 120_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005, idempotencyWindowMs: 1 });
      const env = simulatorEnv(simulator);
      const dir = await makeWorkDir('results-machine');

      // Night one on machine A: results beside its manifest.
      const a = await checkout(join(dir, 'a'));
      const one = await runCli(['apply', a, ...RUN, ...FAST_YES], { env });
      expect(one.code, one.stderr).toBe(0);
      const created = simulator.stats().jobsCreated;
      expect(created).toBe(3);

      // Machine B: a fresh checkout and the state folder only; A's folder is moved away.
      const b = await checkout(join(dir, 'b'));
      await cp(join(dir, 'a', '.runner'), join(dir, 'b', '.runner'), { recursive: true });
      await rename(join(dir, 'a'), join(dir, 'a-gone'));
      // Another machine (the CI's fresh runner): the folder A recorded is not its own.
      const envB = { ...env, RUNNER_MACHINE: 'runner-b' };
      const statusBefore = await runCli(['status', b, ...RUN, '--json'], { env: envB });
      expect(statusBefore.code, statusBefore.stderr).toBe(1);
      expect((JSON.parse(statusBefore.stdout) as { missingHere: number }).missingHere).toBe(3);

      const two = await runCli(['apply', b, ...RUN, ...FAST_YES], { env: envB });
      expect(two.code, two.stderr).toBe(0);
      expect(two.stderr).toContain('fetched again from the service');
      expect(simulator.stats().jobsCreated).toBe(created);

      // Every result in B's own output folder, with the bytes the service serves.
      const out = join(dir, 'b', 'runner-output', 'nightly', 'night-1');
      const index = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as ResultsIndex;
      const served = await servedHashes(index);
      expect(index.results).toHaveLength(3);
      for (const row of index.results) {
        expect(row.status).toBe('done');
        expect(row.missing).toBeUndefined();
        expect(row.file, JSON.stringify(row)).toBeDefined();
        const bytes = await readFile(join(out, row.file!));
        expect(sha256(bytes)).toBe(served.get(row.resultUrl!));
        expect(row.sha256).toBe(sha256(bytes));
      }
      const report = await readFile(join(out, 'report.html'), 'utf8');
      expect(report).not.toContain('a-gone');
      // No result of the page's data is missing (a `"missing":` field); the page's own script names the
      // "missing" state's class, so the bare word proves nothing either way.
      expect(report).not.toContain('"missing":');
      expect((await listFilesDeep(out)).filter((file) => file.endsWith('.png'))).toHaveLength(3);
      const statusAfter = await runCli(['status', b, ...RUN, '--json'], { env: envB });
      expect(statusAfter.code, statusAfter.stderr).toBe(0);
      const view = JSON.parse(statusAfter.stdout) as StatusView & { missingHere: number; outputDir: string };
      expect(view.missingHere).toBe(0);
      expect(view.outputDir).toBe(out);

      // Machine C after the links expired: reported as expired with where and when it was saved.
      const c = await checkout(join(dir, 'c'));
      await cp(join(dir, 'b', '.runner'), join(dir, 'c', '.runner'), { recursive: true });
      simulator.setHostile({ resultStatus: 403 });
      const envC = { ...env, RUNNER_MACHINE: 'runner-c' };
      const three = await runCli(['apply', c, ...RUN, ...FAST_YES], { env: envC });
      expect(three.code).toBe(1);
      expect(simulator.stats().jobsCreated).toBe(created);
      expect(three.stderr).toMatch(/missing from .* its link expired/);
      // When, as a person reads it (not ISO): the day, the month's name, the year, the time in UTC.
      expect(three.stderr).toMatch(/saved on \S+ pid \d+ at \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d UTC/);
      const outC = join(dir, 'c', 'runner-output', 'nightly', 'night-1');
      const indexC = JSON.parse(await readFile(join(outC, 'results.json'), 'utf8')) as ResultsIndex;
      for (const row of indexC.results) {
        expect(row.status).toBe('downloading');
        expect(row.file).toBeUndefined();
        expect(row.missing).toMatch(/its link expired.*saved on .* at /);
      }
      const statusC = await runCli(['status', c, ...RUN, '--json'], { env: envC });
      expect(statusC.code).toBe(1);
      expect((JSON.parse(statusC.stdout) as { missingHere: number }).missingHere).toBe(3);
    },
  );
});
