import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PruneView } from '../../src/app/state-prune.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { RunsView } from '../../src/state/run-summary.js';
import { stateStoreFor } from '../../src/state/select-state-store.js';
import { makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli, startCli } from './run-cli.js';
import { runCliKilledAfterStart } from './run-cli-killable.js';
import { stateBackends, useStateBackend, type StatePlace } from './state-backends.js';

const FAST = ['--poll-interval', '15-25', '--first-poll', '30'];

/**
 * `runner state prune` (#33.14) on both backends: it keeps the newest N runs, never one an apply holds,
 * never one with paid work unfinished unless --force; --dry-run deletes nothing; a pruned run is gone
 * from `runs` and `status`, its results stay, and applying it again pays again (as prune says); a
 * deletion stopped midway leaves the run whole (PostgreSQL) or reading as gone (the folder).
 */
/**
 * A live apply's lease (PostgreSQL): the default, which a loaded machine keeps. With 1.5 s the held
 * apply, whose jobs last 12 s, could go that long without a renewal and stop, by design (exit 1).
 */
const LIVE_LEASE_TTL_MS = 30_000;
/** The apply a case kills, then waits out (`waitForLeaseExpiry`): short, yet kept until the kill. */
const KILLED_LEASE_TTL_MS = 3_000;

describe.each(stateBackends())('runner state prune, state in %s', (backend) => {
  const backendState = useStateBackend(backend, { leaseTtlMs: LIVE_LEASE_TTL_MS });
  let simulator: Simulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    // An idempotency window of a simulated millisecond: a run applied again after its state is gone is
    // answered with new jobs, as the service would once its five minutes are over.
    simulator = await startSimulator({
      timeScale: 0.005,
      idempotencyWindowMs: 1,
      // Paid from credits, not the plan's allowance: what a second apply of a run pays shows.
      account: { subscriptionImageQuota: 0 },
    });
    env = simulatorEnv(simulator);
  });
  afterAll(() => simulator.close());

  async function workspace(name: string) {
    const dir = await makeWorkDir(`prune-${name}`);
    const { file } = await writeImageMatrixManifest(dir, { name, subjects: ['fox', 'owl'], styles: ['ink'] });
    const place = await backendState.place(join(dir, 'state'), name);
    const cli = (args: string[], more: Record<string, string> = {}) =>
      runCli(args, { env: { ...env, ...place.env, ...more }, cwd: dir, timeoutMs: 60_000 });
    const apply = async (run: string) => {
      const result = await cli(['apply', file, '--run', run, ...place.args, '--yes', ...FAST]);
      expect(result.code, result.stderr).toBe(0);
    };
    const runIds = async () => {
      const result = await cli(['runs', file, ...place.args, '--json']);
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as RunsView).runs.map((run) => run.runId);
    };
    const prune = async (args: string[]) => {
      const result = await cli(['state', 'prune', file, ...place.args, '--json', ...args]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as PruneView;
    };
    return { dir, file, place, cli, apply, runIds, prune };
  }

  it('keeps the newest N; --dry-run deletes nothing; a pruned run is gone from runs and status, its results stay, and applying it again pays again', async () => {
    const { dir, file, place, cli, apply, runIds, prune } = await workspace('keep');
    for (const run of ['r1', 'r2', 'r3']) await apply(run);
    expect(await runIds()).toEqual(['r1', 'r2', 'r3']);

    const dry = await prune(['--keep-runs', '1', '--dry-run']);
    expect(dry.dryRun).toBe(true);
    expect(dry.pruned.map((run) => [run.runId, run.pipeline, run.jobs])).toEqual([
      ['r1', 'keep', 2],
      ['r2', 'keep', 2],
    ]);
    for (const run of dry.pruned) {
      expect(run.bytes).toBeGreaterThan(0);
      expect(Date.parse(run.lastAppliedAt ?? '')).toBeGreaterThan(0);
    }
    expect(await runIds()).toEqual(['r1', 'r2', 'r3']);
    const dryText = await cli(['state', 'prune', file, ...place.args, '--keep-runs', '1', '--dry-run']);
    expect(dryText.stdout).toMatch(/Would prune 2 runs of pipeline "keep" .*nothing was deleted/);
    expect(dryText.stdout).toMatch(/^ {2}r1 {2}started .* last applied .* 2 jobs .*\d+(\.\d)? (B|KiB)$/m);

    const done = await cli(['state', 'prune', file, ...place.args, '--keep-runs', '1']);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toMatch(/Pruned 2 runs of pipeline "keep" .*; 1 run left/);
    expect(done.stdout).toMatch(
      /never results.*applied again starts afresh: its jobs are created and paid for again/s,
    );
    expect(await runIds()).toEqual(['r3']);
    if (backend === 'folder') expect(await readdir(join(dir, 'state', 'keep'))).toEqual(['r3']);
    const status = await cli(['status', file, '--run', 'r1', ...place.args]);
    expect(status.code).not.toBe(0);
    expect(status.stderr).toMatch(/Run "r1" of pipeline "keep" has no state/);
    // Results are not state: r1's files are where apply saved them.
    const r1Files = await readdir(join(dir, 'runner-output', 'keep', 'r1'));
    expect(r1Files.filter((name) => name.endsWith('.png'))).toHaveLength(2);

    // Nothing left to prune under the same rule.
    expect((await prune(['--keep-runs', '1'])).pruned).toEqual([]);

    // Applied again, r1 starts afresh: two new jobs, paid again.
    const before = simulator.stats();
    await apply('r1');
    const after = simulator.stats();
    expect(after.jobsCreated - before.jobsCreated).toBe(2);
    expect(after.creditsCharged - before.creditsCharged).toBeGreaterThan(0);
    expect(await runIds()).toEqual(['r3', 'r1']);
  }, 120_000);

  it('--older-than and --pipeline without the manifest select runs; a rule is required', async () => {
    const { file, place, cli, apply, runIds, prune } = await workspace('aged');
    await apply('a1');
    await apply('a2');
    // Nothing was applied before 2000: nothing goes.
    expect((await prune(['--older-than', '2000-01-01'])).pruned).toEqual([]);
    // Both were applied before a day from now (as the date the run records): --keep-runs 1 keeps a2.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    expect(
      (await prune(['--older-than', tomorrow, '--keep-runs', '1'])).pruned.map((run) => run.runId),
    ).toEqual(['a1']);
    expect(await runIds()).toEqual(['a2']);
    // No manifest: the pipeline by name, the state by --state-dir or --state.
    const where = backend === 'folder' ? place.args : ['--state', place.env.RUNNER_STATE_URL ?? ''];
    const named = await cli(['state', 'prune', '--pipeline', 'aged', ...where, '--keep-runs', '0', '--json']);
    expect(named.code, named.stderr).toBe(0);
    expect((JSON.parse(named.stdout) as PruneView).pruned.map((run) => run.runId)).toEqual(['a2']);
    expect(await runIds()).toEqual([]);
    const noRule = await cli(['state', 'prune', file, ...place.args]);
    expect(noRule.code).toBe(2);
    expect(noRule.stderr).toMatch(/needs a rule: --keep-runs N, --older-than/);
    const badAge = await cli(['state', 'prune', file, ...place.args, '--older-than', '30 days']);
    expect(badAge.code).toBe(2);
    expect(badAge.stderr).toMatch(/--older-than expects an age \(30d, 12h, 2w\) or a date/);
  }, 120_000);

  it('keeps a run an apply holds, and a killed run with paid jobs open until --force, which says what is lost', async () => {
    // Jobs of ~3 s: still open while the first apply runs and after the second is killed.
    // The held apply's jobs last 12 s: long enough that it still holds its run while two prunes run
    // on a loaded machine (at 3 s it had finished before the second, at a load of 19).
    const slow = await startSimulator({ timeScale: 0.005, jobDurationMs: { image: 2_400_000 } });
    try {
      const { file, place, cli, runIds, prune } = await workspace('held');
      const slowEnv = { ...simulatorEnv(slow), ...place.env };
      const applyArgs = (run: string) => ['apply', file, '--run', run, ...place.args, '--yes', ...FAST];

      const live = startCli(applyArgs('live'), { env: slowEnv, timeoutMs: 60_000 });
      while (slow.stats().jobsCreated < 2) await sleep(5);
      const whileLive = await prune(['--keep-runs', '0']);
      expect(whileLive.pruned).toEqual([]);
      expect(whileLive.kept).toEqual([
        expect.objectContaining({
          runId: 'live',
          live: true,
          reason: expect.stringMatching(/an apply holds its (lock|lease) now/),
        }),
      ]);
      const text = await cli(['state', 'prune', file, ...place.args, '--keep-runs', '0', '--dry-run']);
      expect(text.stdout).toMatch(/Kept run "live": an apply holds its .*Prune it once that apply has ended/);
      expect((await live.result).code).toBe(0);
      expect(await runIds()).toEqual(['live']);

      const killed = await runCliKilledAfterStart(
        applyArgs('killed'),
        200,
        () => slow.stats().jobsCreated >= 4,
        {
          env: { ...slowEnv, RUNNER_LEASE_TTL_MS: String(KILLED_LEASE_TTL_MS) },
        },
      );
      expect(killed.killed, killed.stderr).toBe(true);
      // A killed apply's lease lives on until it expires (PostgreSQL); a dead process's lock is taken over.
      await place.waitForLeaseExpiry();
      const unfinished = await prune(['--keep-runs', '0']);
      expect(unfinished.pruned.map((run) => run.runId)).toEqual(['live']);
      expect(unfinished.kept).toEqual([
        expect.objectContaining({
          runId: 'killed',
          live: false,
          reason: expect.stringMatching(/^it has 2 paid jobs still open on the service/),
        }),
      ]);
      const hint = await cli(['state', 'prune', file, ...place.args, '--keep-runs', '0', '--dry-run']);
      expect(hint.stdout).toMatch(
        /Kept run "killed": it has 2 paid jobs still open.*Finish it first \(runner apply .* --run killed.*\), or prune it with --force/,
      );
      expect(await runIds()).toEqual(['killed']);

      const forced = await prune(['--keep-runs', '0', '--force']);
      expect(forced.pruned).toEqual([
        expect.objectContaining({ runId: 'killed', lost: expect.stringMatching(/2 paid jobs still open/) }),
      ]);
      expect(await runIds()).toEqual([]);
    } finally {
      await slow.close();
    }
  }, 120_000);

  it('a deletion stopped midway leaves a readable state: the run whole (PostgreSQL) or gone (the folder)', async () => {
    const { dir, file, apply, runIds, prune, place } = await workspace('crash');
    await apply('c1');
    const store = await stateStoreFor(storeWhere(place));
    const where = { manifestFile: file, pipeline: 'crash', runId: 'c1', ...storeWhere(place) };
    await expect(
      store.deleteRun(where, { seam: () => Promise.reject(new Error('crashed between the steps')) }),
    ).rejects.toThrow(/crashed between the steps/);
    if (backend === 'postgres') {
      // Rolled back: every record is still there and the run reads whole.
      expect(await runIds()).toEqual(['c1']);
      expect((await place.records('c1')).length).toBeGreaterThan(0);
      expect((await prune(['--keep-runs', '0'])).pruned.map((run) => run.runId)).toEqual(['c1']);
    } else {
      // Set aside, not yet removed: the run reads as gone; the next prune removes what was set aside.
      expect(await runIds()).toEqual([]);
      const left = await readdir(join(dir, 'state', 'crash'));
      expect(left).toEqual([expect.stringMatching(/^\.pruned-c1-/)]);
      await apply('c2');
      expect((await prune(['--keep-runs', '1'])).pruned).toEqual([]);
      expect(await readdir(join(dir, 'state', 'crash'))).toEqual(['c2']);
    }
    expect(existsSync(join(dir, 'runner-output', 'crash', 'c1'))).toBe(true);
  }, 120_000);
});

function storeWhere(place: StatePlace): { stateDir?: string; stateUrl?: string } {
  if (place.backend === 'folder') return { stateDir: place.args[1] ?? '' };
  return { stateUrl: place.env.RUNNER_STATE_URL ?? '' };
}
