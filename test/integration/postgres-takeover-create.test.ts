import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { executePlan } from '../../src/execute/executor.js';
import type { Plan } from '../../src/plan/types.js';
import { createServiceClient } from '../../src/service/client.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import { summarizeJob } from '../../src/state/job-state.js';
import type { OpenRunInput, RunState } from '../../src/state/state-store.js';
import { testRun } from '../run-state.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { videoJob } from './executor-harness.js';

/**
 * Creates without an idempotency key (videos) in flight when their sender's lease is taken over
 * (#31.9): the sender keeps the answers it gets after its lease ended as late records, and the taker
 * waits for them before it calls a create uncertain. Nothing is paid twice, no paid job is lost.
 */
describe.runIf(pgAvailable())('a takeover while video creates are in flight (PostgreSQL)', () => {
  const cluster = usePgCluster();
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-pg-takeover-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const address = (machine: string): OpenRunInput => ({
    manifestFile: join(dir, 'm.yaml'),
    pipeline: 'p',
    runId: 'r1',
    uploadCachePath: join(dir, `uploads-${machine}.json`),
    leaseTtlMs: 3_000,
    machine,
  });

  it('takeover mid-create of 4 videos (lease broken): 0 paid twice, 0 lost, none uncertain', async () => {
    const url = await cluster().createDatabase();
    const store = createPostgresStore(url);
    const sim = await startSimulator({ timeScale: 0.002, seed: 11 });
    const client = createServiceClient({
      baseUrl: sim.baseUrl,
      apiKey: sim.apiKey,
      retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20 },
    });
    const plan: Plan = {
      pipeline: 'p',
      manifestFile: join(dir, 'm.yaml'),
      jobs: ['v1', 'v2', 'v3', 'v4'].map((id) => videoJob(id, `a short film ${id}`)),
      warnings: [],
    };
    const apply = async (state: RunState, events: ExecutionEvent[]): Promise<ExecutionSummary> => {
      const coordination = state.coordination;
      if (coordination === undefined) throw new Error('no coordination');
      await coordination.join('plan-1');
      return executePlan(
        plan,
        {
          client,
          run: testRun({
            journal: state.journal,
            lock: state.lock,
            jobs: state.jobs,
            snapshots: state.snapshots,
            coordination,
          }),
          clock: systemClock,
          signal: new AbortController().signal,
          onEvent: (event) => events.push(event),
        },
        {
          runId: 'r1',
          pollIntervalMs: [10, 30],
          firstPollAfterMs: 20,
          retry: { backoffMs: 5 },
          download: false,
          outputDir: join(dir, 'out'),
        },
      );
    };
    const hold = sim.holdCreates();
    const a = await store.openRun(address('a'));
    let b: RunState | undefined;
    try {
      const eventsA: ExecutionEvent[] = [];
      const runA = apply(a, eventsA).catch((error: unknown) => error);
      // All four creates are sent, and none is answered yet.
      await vi.waitFor(() => expect(hold.held()).toBe(4), { timeout: 30_000, interval: 50 });
      expect(await breakLease(url, { pipeline: 'p', runId: 'r1' })).toBe(true);

      b = await store.openRun(address('b'));
      const eventsB: ExecutionEvent[] = [];
      let finishedB = false;
      const runB = apply(b, eventsB).finally(() => (finishedB = true));
      // B either waits for the answers (the fix) or has already given up on them.
      await vi.waitFor(
        () => {
          const waiting = eventsB.filter(
            (event) => event.type === 'warning' && /waiting up to \d+ s for the answer/.test(event.message),
          );
          expect(finishedB || waiting.length === 4).toBe(true);
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
      const reading = await store.readRun(address('b'));
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
});
