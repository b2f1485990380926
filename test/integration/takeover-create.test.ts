import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { folderStateStore } from '../../src/state/backends/folder/folder-store.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import { summarizeJob } from '../../src/state/job-state.js';
import type { OpenRunInput, RunState, StateStore } from '../../src/state/state-store.js';
import { pgAvailable } from '../pg-cluster.js';
import { videoJob } from './executor-harness.js';
import { HOST_A, HOST_B, useFolderOfTwoHosts } from './folder-two-hosts.js';
import { executeOnRun, planOf, quickOptions, startService, usePgWorkFolder } from './pg-work-folder.js';

/**
 * One run taken over while its holder's video creates (no idempotency key) are in flight (#31.9),
 * told once and run on both backends: A's creates land after B took the run over. A keeps the
 * answers it gets after its lease ended as late records; B, which holds the run's state whole (its
 * late answers: the folder's after a takeover, a shared run's from its coordination), waits for them
 * before it calls a create uncertain, even with `--resend-uncertain`. Nothing is paid twice, no paid
 * job is lost.
 */
interface Backend {
  readonly store: StateStore;
  /** Where the run's work folder is (the manifest's, the results'). */
  readonly dir: string;
  /** The run as machine A opens it (on the folder, with a clock that `endLease` moves on). */
  readonly a: OpenRunInput;
  readonly b: OpenRunInput;
  /** Ends A's lease under it, moments ago: its creates in flight may still be answered. */
  endLease(a: RunState): Promise<void>;
  /** Checks that B's open took the run over from A. */
  tookOver(b: RunState): void;
}

function takeoverScenario(backendOf: () => Backend): void {
  it("A's video creates land after B took over: B waits for their answers, --resend-uncertain pays nothing twice, none is lost", async () => {
    const backend = backendOf();
    const { store, dir } = backend;
    const { sim, connect } = await startService(11, 1);
    const client = connect();
    const plan = planOf(
      dir,
      ['v1', 'v2', 'v3', 'v4'].map((id) => videoJob(id, `a short film ${id}`)),
    );
    const apply = async (
      state: RunState,
      events: ExecutionEvent[],
      onUncertain: 'skip' | 'resend',
    ): Promise<ExecutionSummary> => {
      // A shared run (PostgreSQL) is joined first, as apply does before it executes.
      await state.coordination?.join('plan-1');
      return executeOnRun(plan, state, { client, events, options: quickOptions(dir, { onUncertain }) });
    };
    const hold = sim.holdCreates();
    const a = await store.openRun(backend.a);
    let b: RunState | undefined;
    try {
      const eventsA: ExecutionEvent[] = [];
      const runA = apply(a, eventsA, 'skip').catch((error: unknown) => error);
      // All four creates are sent, and none is answered yet.
      await vi.waitFor(() => expect(hold.held()).toBe(4), { timeout: 30_000, interval: 50 });
      await backend.endLease(a);
      b = await store.openRun(backend.b);
      backend.tookOver(b);
      // Right after the takeover, with --resend-uncertain.
      const eventsB: ExecutionEvent[] = [];
      let finishedB = false;
      const runB = apply(b, eventsB, 'resend').finally(() => (finishedB = true));
      // B either waits for the answers (the fix), or gave up on them and re-sent the creates.
      await vi.waitFor(
        () => {
          const waiting = eventsB.filter(
            (event) => event.type === 'warning' && /waiting up to \d+ s for the answer/.test(event.message),
          );
          expect(finishedB || waiting.length === 4 || hold.held() > 4).toBe(true);
        },
        { timeout: 30_000, interval: 50 },
      );
      hold.release();
      const summaryB = await runB;
      await runA;

      const stats = sim.stats();
      expect(stats.jobsCreated).toBe(4);
      // Every paid job is on record and followed to its end; none is uncertain.
      expect(summaryB.jobs.map((job) => `${job.id} ${job.outcome}`).sort()).toEqual([
        'v1 done',
        'v2 done',
        'v3 done',
        'v4 done',
      ]);
      const reading = await store.readRun(backend.b);
      const recorded = [...reading.replay.jobs.values()].map((job) => summarizeJob(job));
      expect(recorded.map((job) => job.status)).toEqual(['done', 'done', 'done', 'done']);
      expect(new Set(recorded.map((job) => job.lastJobId))).toEqual(
        new Set(stats.jobs.map((job) => job.jobId)),
      );
      // A said what it kept.
      expect(
        eventsA.filter(
          (event) => event.type === 'warning' && /kept in the state as a late record/.test(event.message),
        ),
      ).toHaveLength(4);
    } finally {
      hold.release();
      await b?.close();
      await a.close();
      await client.close();
      await sim.close();
    }
  });
}

describe('a takeover while video creates are in flight (folder)', () => {
  const work = useFolderOfTwoHosts('runner-folder-takeover-');
  takeoverScenario(() => {
    let pausedFor = 0;
    return {
      store: folderStateStore,
      dir: work.dir(),
      a: work.address(HOST_A, () => Date.now() + pausedFor),
      b: work.address(HOST_B),
      async endLease(a) {
        // A is paused, and its lock went stale just now (not refreshed for a little over its 30 s):
        // A stopped creating 15 s after its last refresh, so its creates may be answered for a while.
        pausedFor = 120_000;
        const past = new Date(Date.now() - 31_000);
        await utimes(join(a.dir, 'lock'), past, past);
      },
      tookOver: (b) => expect(b.warnings.join('\n')).toMatch(/stale|took over|taken over/i),
    };
  });
});

describe.runIf(pgAvailable())('a takeover while video creates are in flight (PostgreSQL)', () => {
  const work = usePgWorkFolder('runner-pg-takeover-', { leaseTtlMs: 3_000 });
  let url = '';
  beforeEach(async () => {
    url = await work.cluster().createDatabase();
  });
  takeoverScenario(() => ({
    store: createPostgresStore(url),
    dir: work.dir,
    a: work.address('a'),
    b: work.address('b'),
    // As `runner state lease --break` does: A's lease ends now.
    endLease: async () => {
      expect(await breakLease(url, { pipeline: 'p', runId: 'r1' })).toBe(true);
    },
    tookOver: () => undefined,
  }));
});
