import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { StatusView } from '../../src/state/status-view.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { simulatorEnv, writeApplyWorkspace } from './apply-fixtures.js';
import { runCli, startCli } from './run-cli.js';

/** 45 s simulated image jobs take 0.4 s real. */
const TIME_SCALE = 0.009;
const IMAGE_COST = 4;
/**
 * The machines the case kills (m1-m3): short leases, so the next machine takes a killed one's run
 * within the test, yet kept until the kill on a loaded machine.
 */
const KILLED_LEASE_TTL_MS = 3_000;
/**
 * The machine that finishes the run (m4): the default lease, which a loaded machine keeps (with 2 s,
 * one that went that long without a renewal would stop, by design, and fail the case).
 */
const LIVE_LEASE_TTL_MS = 30_000;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Issue #30's quality bar on PostgreSQL: four machines in a row, each on a fresh folder of its own (a
 * team's laptops and runners share no paths), the first three killed with SIGKILL mid-run, the fourth
 * finishing the run. Before #30.1 every result went to the first machine's absolute path and the last
 * machine's own output held none; now the last machine's own output holds every result with the bytes
 * the service serves, each job was created once, and its status and report show no missing result.
 */
describe.runIf(pgAvailable())('four machines in a row on one PostgreSQL run', () => {
  const cluster = usePgCluster();

  it('the last machine, on a fresh folder, holds every result; nothing is paid twice', async () => {
    const simulator = await startSimulator({
      timeScale: TIME_SCALE,
      seed: 71,
      idempotencyWindowMs: Math.ceil(300_000 / TIME_SCALE),
      account: { subscriptionImageQuota: 0 },
    });
    const url = await cluster().createDatabase();
    const env = {
      ...simulatorEnv(simulator),
      RUNNER_STATE_URL: url,
      RUNNER_LEASE_TTL_MS: String(KILLED_LEASE_TTL_MS),
    };
    const names = ['m1', 'm2', 'm3', 'm4'];
    const machines = await Promise.all(
      names.map((name) =>
        writeApplyWorkspace(`pg-row-${name}`, { name: 'row', subjects: SUBJECTS, styles: STYLES }),
      ),
    );
    try {
      const jobIds = machines[0]?.jobIds ?? [];
      // m1, m2, m3: each killed once it has created a few more jobs than the machine before it.
      for (const [index, one] of machines.slice(0, 3).entries()) {
        const before = simulator.stats().jobsCreated;
        const cli = startCli([...one.apply, '--run', 'night'], {
          env: { ...env, RUNNER_MACHINE: names[index] ?? '' },
          timeoutMs: 90_000,
        });
        await waitFor(
          () => simulator.stats().jobsCreated >= Math.min(jobIds.length - 1, before + 3),
          cli.result,
        );
        cli.kill();
        expect((await cli.result).signal).toBe('SIGKILL');
      }
      const last = machines[3];
      if (last === undefined) throw new Error('no fourth machine');
      const lastEnv = { ...env, RUNNER_MACHINE: 'm4', RUNNER_LEASE_TTL_MS: String(LIVE_LEASE_TTL_MS) };
      const finished = await runCli([...last.apply, '--run', 'night'], { env: lastEnv, timeoutMs: 120_000 });
      expect(finished.code, finished.stderr).toBe(0);

      // Each intended job created and paid once, whatever the kills left open.
      const stats = simulator.stats();
      expect(stats.jobsCreated).toBe(jobIds.length);
      expect(stats.creditsCharged).toBe(jobIds.length * IMAGE_COST);

      // The fourth machine's own output folder holds every result, with the service's bytes.
      const status = await runCli(['status', last.file, '--run', 'night', '--json'], { env: lastEnv });
      expect(status.code, status.stderr).toBe(0);
      const view = JSON.parse(status.stdout) as StatusView;
      expect(view.jobs.map((job) => job.status)).toEqual(jobIds.map(() => 'done'));
      const machinesThatDid = new Set(view.jobs.map((job) => job.machine));
      expect(machinesThatDid.size, [...machinesThatDid].join()).toBeGreaterThan(1);
      const out = join(last.dir, 'out');
      const index = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as ResultsIndex;
      // A job may have several results (the service's numImages): every job is there, each result once.
      expect(new Set(index.results.map((row) => row.id))).toEqual(new Set(jobIds));
      expect(new Set(index.results.map((row) => row.file)).size).toBe(index.results.length);
      for (const row of index.results) {
        expect(row.status, row.id).toBe('done');
        expect(row.missing, row.id).toBeUndefined();
        expect(row.file, JSON.stringify(row)).toBeDefined();
        const bytes = await readFile(join(out, row.file ?? ''));
        const served = await fetch(row.resultUrl ?? '');
        expect(sha256(bytes), row.id).toBe(sha256(new Uint8Array(await served.arrayBuffer())));
      }
      // The earlier machines' folders are not written by the last one.
      for (const one of machines.slice(0, 3)) {
        const theirs = await readFile(join(one.dir, 'out', 'results.json'), 'utf8').catch(() => undefined);
        expect(theirs, one.dir).toBeUndefined();
      }
    } finally {
      await simulator.close();
      for (const one of machines) await rm(one.dir, { recursive: true, force: true });
    }
  }, 240_000);
});

const SUBJECTS = ['fox', 'owl', 'bear', 'heron'];
const STYLES = ['watercolor', 'pencil', 'oil'];

/** Waits until `condition` holds; fails with what the CLI said if it ended first. */
async function waitFor(
  condition: () => boolean,
  ended: Promise<{ stderr: string }>,
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  let done: { stderr: string } | undefined;
  void ended.then((result) => (done = result));
  while (!condition()) {
    if (done !== undefined) throw new Error(`the machine ended first: ${done.stderr}`);
    if (Date.now() > until) throw new Error('timed out waiting for creates');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
