import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { OUTPUT_CLAIM_FILE } from '../../src/state/output-claim.js';
import type { StatusView } from '../../src/state/status-view.js';
import { canMountTinyDisk, fillDisk, mountTinyDisk } from '../tiny-disk.js';
import { FAST, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * A full output disk through the built CLI (#24.3): a real tmpfs, where the test may mount one (root);
 * skipped elsewhere (test/integration/execute-downloads.test.ts covers the same with an injected writer).
 */

const TIME_SCALE = 0.005;
const ONE_AT_A_TIME = [...FAST, '--concurrency', '1', '--yes'];

let simulator: Simulator | undefined;
let disk: { path: string; unmount(): void } | undefined;
let dir: string | undefined;
afterEach(async () => {
  await simulator?.close();
  disk?.unmount();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  simulator = undefined;
  disk = undefined;
  dir = undefined;
});

async function listAll(folder: string): Promise<string[]> {
  return (await readdir(folder, { recursive: true })).sort();
}

describe.skipIf(!canMountTinyDisk)('apply with its output folder on a full disk', () => {
  it('records no cut file, names the full folder, pays nothing more, and saves the result once there is room', async () => {
    simulator = await startSimulator({ timeScale: TIME_SCALE, idempotencyWindowMs: 300_000 / TIME_SCALE });
    dir = await makeWorkDir('full-disk');
    disk = mountTinyDisk(64);
    const { file } = await writeImageMatrixManifest(dir, {
      name: 'full',
      subjects: ['fox', 'owl', 'elk'],
      styles: ['ink'],
    });
    const env = simulatorEnv(simulator);
    const where = ['--state-dir', join(dir, 'state'), '--output', disk.path, '--no-report'];
    // No room: the first result cannot be saved; the second job may be created meanwhile (its slot is
    // free once the first completes), the third never is.
    let filler = await fillDisk(disk.path, 'filler');

    // An output folder that cannot take the run's claim (#20.5) is refused before the first create.
    const refused = await runCli(['apply', file, ...where, ...ONE_AT_A_TIME], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/could not be saved \(ENOSPC/);
    expect(refused.stderr).toContain('Nothing was created or paid.');
    expect(simulator.stats().jobsCreated).toBe(0);
    expect(await listAll(disk.path)).toEqual(['filler']);
    // The disk that fills up during a run: the folder holds the run's claim from its start.
    await rm(filler);
    const owner = { pipeline: 'full', runId: 'default', stateDir: join(dir, 'state', 'full', 'default') };
    await writeFile(join(disk.path, OUTPUT_CLAIM_FILE), JSON.stringify(owner));
    filler = await fillDisk(disk.path, 'filler');

    const first = await runCli(['apply', file, ...where, ...ONE_AT_A_TIME], { env });
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/is full \(ENOSPC\); the partial file was removed/);
    expect(first.stderr).toContain(`the disk holding ${disk.path}`);
    expect(first.stdout).not.toMatch(/3 of 3 jobs done|All 3 jobs done/);
    const createdFirst = simulator.stats().jobsCreated;
    expect(createdFirst).toBeLessThan(3);
    expect((await listAll(disk.path)).filter((name) => /\.part-|\.tmp$/.test(name))).toEqual([]);
    const owed = await runCli(['status', file, ...where.slice(0, 2), '--json'], { env });
    expect(owed.code).toBe(1);
    expect((JSON.parse(owed.stdout) as StatusView).totals.downloading).toBeGreaterThanOrEqual(1);

    await rm(filler);
    const second = await runCli(['apply', file, ...where, ...ONE_AT_A_TIME], { env });
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('All 3 jobs done.');
    expect(simulator.stats().jobsCreated).toBe(3);
    const done = await runCli(['status', file, ...where.slice(0, 2), '--json'], { env });
    expect(done.code).toBe(0);
    const view = JSON.parse(done.stdout) as StatusView;
    for (const job of view.jobs) {
      expect(job.status).toBe('done');
      for (const saved of job.files) {
        const bytes = await readFile(saved.file);
        expect(saved.bytes).toBe(bytes.length);
        expect(saved.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      }
    }
  }, 60_000);
});
