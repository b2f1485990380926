import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { executePlan } from '../../src/execute/executor.js';
import type { Plan } from '../../src/plan/types.js';
import { createServiceClient } from '../../src/service/client.js';
import { startSimulator } from '../../src/simulator/index.js';
import { folderStateStore } from '../../src/state/backends/folder/folder-store.js';
import { summarizeJob } from '../../src/state/job-state.js';
import type { OpenRunInput, RunState } from '../../src/state/state-store.js';
import { testRun } from '../run-state.js';
import { videoJob } from './executor-harness.js';

/** Two machines sharing a run folder (a network folder): one lock file, two hosts. */
const HOST_A = { hostname: 'host-a', bootId: 'boot-a', pidNamespace: 'pid:[a]' };
const HOST_B = { hostname: 'host-b', bootId: 'boot-b', pidNamespace: 'pid:[b]' };

/**
 * The folder twin of `postgres-takeover-create` (#31.9 on the folder): video creates (no idempotency
 * key) are in flight when their sender's lock goes stale and another machine takes the run folder
 * over. The sender keeps the answers it gets afterwards as late records beside the journal, and the
 * next holder adopts them: no paid job is lost, none is paid twice.
 */
describe('a takeover of a run folder while video creates are in flight', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-folder-takeover-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const address = (identity: typeof HOST_A, now: () => number = () => Date.now()): OpenRunInput => ({
    manifestFile: join(dir, 'm.yaml'),
    stateDir: join(dir, 'state'),
    pipeline: 'p',
    runId: 'r1',
    uploadCachePath: join(dir, `uploads-${identity.hostname}.json`),
    // No heartbeat during the test: the holder's lease is what its clock says.
    lock: { identity, heartbeatMs: 600_000, now },
  });

  it('lock taken over mid-create of 4 videos: the answers are kept and adopted, 0 paid twice, 0 lost', async () => {
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
    const apply = (state: RunState, events: ExecutionEvent[]): Promise<ExecutionSummary> =>
      executePlan(
        plan,
        {
          client,
          run: testRun({
            journal: state.journal,
            lock: state.lock,
            jobs: state.jobs,
            snapshots: state.snapshots,
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
    const hold = sim.holdCreates();
    let pausedFor = 0;
    const a = await folderStateStore.openRun(address(HOST_A, () => Date.now() + pausedFor));
    let b: RunState | undefined;
    let c: RunState | undefined;
    try {
      const eventsA: ExecutionEvent[] = [];
      const runA = apply(a, eventsA).catch((error: unknown) => error);
      // All four creates are sent, and none is answered yet.
      await vi.waitFor(() => expect(hold.held()).toBe(4), { timeout: 30_000, interval: 50 });
      // A is paused past its lease (its clock jumps), and its lock looks stale to B, which takes it.
      pausedFor = 120_000;
      const past = new Date(Date.now() - 120_000);
      await utimes(join(a.dir, 'lock'), past, past);
      b = await folderStateStore.openRun(address(HOST_B));
      expect(b.warnings.join('\n')).toMatch(/stale|took over|taken over/i);
      const eventsB: ExecutionEvent[] = [];
      const summaryB = await apply(b, eventsB);
      // B could not know whether the creates made jobs: uncertain, nothing re-sent.
      expect(summaryB.jobs.map((job) => job.outcome)).toEqual([
        'uncertain',
        'uncertain',
        'uncertain',
        'uncertain',
      ]);
      await b.close();
      b = undefined;

      // The creates land now: A learns the four jobs it paid for after its lock was taken over.
      hold.release();
      await runA;
      expect(
        eventsA.filter(
          (event) => event.type === 'warning' && /kept in the state as a late record/.test(event.message),
        ),
      ).toHaveLength(4);
      const stats = sim.stats();
      expect(stats.jobsCreated).toBe(4);

      // A reader sees the paid jobs; the next apply adopts them and follows them to their end.
      const reading = await folderStateStore.readRun(address(HOST_B));
      const read = [...reading.replay.jobs.values()].map((job) => summarizeJob(job));
      expect(new Set(read.map((job) => job.lastJobId))).toEqual(new Set(stats.jobs.map((job) => job.jobId)));
      c = await folderStateStore.openRun(address(HOST_B));
      const summaryC = await apply(c, []);
      expect(summaryC.jobs.map((job) => `${job.id} ${job.outcome}`).sort()).toEqual([
        'v1 done',
        'v2 done',
        'v3 done',
        'v4 done',
      ]);
      await c.close();
      c = undefined;
      expect(sim.stats().jobsCreated).toBe(4);
      // Adopted into the journal: a replay without the late file gives the same jobs.
      const after = await folderStateStore.readRun(address(HOST_B));
      expect([...after.replay.jobs.values()].map((job) => summarizeJob(job).status)).toEqual([
        'done',
        'done',
        'done',
        'done',
      ]);
    } finally {
      hold.release();
      await c?.close();
      await b?.close();
      await a.close();
      await client.close();
      await sim.close();
    }
  });
  it('lock taken over moments after its lease ended: the taker waits for the answers, and --resend-uncertain pays nothing twice', async () => {
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
    const apply = (
      state: RunState,
      events: ExecutionEvent[],
      onUncertain: 'skip' | 'resend',
    ): Promise<ExecutionSummary> =>
      executePlan(
        plan,
        {
          client,
          run: testRun({
            journal: state.journal,
            lock: state.lock,
            jobs: state.jobs,
            snapshots: state.snapshots,
            ...(state.lateAnswers === undefined ? {} : { lateAnswers: state.lateAnswers }),
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
          onUncertain,
        },
      );
    const hold = sim.holdCreates();
    let pausedFor = 0;
    const a = await folderStateStore.openRun(address(HOST_A, () => Date.now() + pausedFor));
    let b: RunState | undefined;
    try {
      const eventsA: ExecutionEvent[] = [];
      const runA = apply(a, eventsA, 'skip').catch((error: unknown) => error);
      await vi.waitFor(() => expect(hold.held()).toBe(4), { timeout: 30_000, interval: 50 });
      // A is paused, and its lock went stale just now (not refreshed for a little over its 30 s):
      // A stopped creating 15 s after its last refresh, so its creates may be answered for a while.
      pausedFor = 120_000;
      const past = new Date(Date.now() - 31_000);
      await utimes(join(a.dir, 'lock'), past, past);
      b = await folderStateStore.openRun(address(HOST_B));
      expect(b.warnings.join('\n')).toMatch(/stale|took over|taken over/i);
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
      expect(summaryB.jobs.map((job) => `${job.id} ${job.outcome}`).sort()).toEqual([
        'v1 done',
        'v2 done',
        'v3 done',
        'v4 done',
      ]);
      const reading = await folderStateStore.readRun(address(HOST_B));
      const recorded = [...reading.replay.jobs.values()].map((job) => summarizeJob(job));
      expect(recorded.map((job) => job.status)).toEqual(['done', 'done', 'done', 'done']);
      expect(new Set(recorded.map((job) => job.lastJobId))).toEqual(
        new Set(stats.jobs.map((job) => job.jobId)),
      );
    } finally {
      hold.release();
      await b?.close();
      await a.close();
      await client.close();
      await sim.close();
    }
  });
});
