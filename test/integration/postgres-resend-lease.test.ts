import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { executePlan } from '../../src/execute/executor.js';
import type { ExecuteOptions } from '../../src/execute/options.js';
import type { Plan } from '../../src/plan/types.js';
import { createServiceClient } from '../../src/service/client.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import type { OpenRunInput, RunState } from '../../src/state/state-store.js';
import { createMemoryUploadCache } from '../../src/state/upload-cache.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { videoJob } from './executor-harness.js';

/** Longer than the 3 s lease: the lease ends while the create waits to be re-sent. */
const RETRY_AFTER_SECONDS = 6;

/**
 * A video create (no idempotency key) answered 429 waits out its `Retry-After` inside the client; the
 * sender's lease ends meanwhile and another machine takes the run over. The waiting create must not
 * be re-sent by a runner that no longer holds the run: the taker may already have re-sent it.
 */
describe.runIf(pgAvailable())('a create re-sent after a 429 wait re-checks the lease (PostgreSQL)', () => {
  const cluster = usePgCluster();
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-pg-resend-'));
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
  const plan = (): Plan => ({
    pipeline: 'p',
    manifestFile: join(dir, 'm.yaml'),
    jobs: [videoJob('v1', 'a short film v1')],
    warnings: [],
  });
  const options = (extra: Partial<ExecuteOptions> = {}): ExecuteOptions => ({
    runId: 'r1',
    pollIntervalMs: [10, 30],
    firstPollAfterMs: 20,
    retry: { backoffMs: 5 },
    download: false,
    outputDir: join(dir, 'out'),
    ...extra,
  });

  /**
   * A's create meets a 429 whose Retry-After outlasts its lease, the lease is broken during the wait,
   * and B takes the run over with `optionsB`. Returns what each saw.
   */
  async function takeOverDuringWait(optionsB: Partial<ExecuteOptions>) {
    const url = await cluster().createDatabase();
    const store = createPostgresStore(url);
    const sim = await startSimulator({ timeScale: 0.002, seed: 5 });
    // One client per machine: each has its own rate-limit gate, as two processes do.
    const connect = () =>
      createServiceClient({
        baseUrl: sim.baseUrl,
        apiKey: sim.apiKey,
        retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
      });
    const clientA = connect();
    const clientB = connect();
    const apply = async (
      state: RunState,
      client: ReturnType<typeof connect>,
      events: ExecutionEvent[],
      extra: Partial<ExecuteOptions> = {},
    ): Promise<ExecutionSummary> => {
      const coordination = state.coordination;
      if (coordination === undefined) throw new Error('no coordination');
      await coordination.join('plan-1');
      return executePlan(
        plan(),
        {
          client,
          journal: state.journal,
          lock: state.lock,
          state: state.jobs,
          clock: systemClock,
          uploadCache: createMemoryUploadCache(),
          snapshots: state.snapshots,
          coordination,
          signal: new AbortController().signal,
          onEvent: (event) => events.push(event),
        },
        options(extra),
      );
    };
    sim.rateLimitNext(1, RETRY_AFTER_SECONDS, { createsOnly: true });
    const a = await store.openRun(address('a'));
    let b: RunState | undefined;
    try {
      const eventsA: ExecutionEvent[] = [];
      const runA = apply(a, clientA, eventsA).catch((error: unknown) => error);
      // A's create met the 429 and waits its Retry-After; its lease is broken meanwhile.
      await vi.waitFor(() => expect(sim.stats().rateLimitedOnDemand).toBe(1), {
        timeout: 30_000,
        interval: 20,
      });
      expect(await breakLease(url, { pipeline: 'p', runId: 'r1' })).toBe(true);
      b = await store.openRun(address('b'));
      const eventsB: ExecutionEvent[] = [];
      const summaryB = await apply(b, clientB, eventsB, optionsB);
      const errorA = await runA;
      return { stats: sim.stats(), summaryB, eventsA, eventsB, errorA };
    } finally {
      await b?.close();
      await a.close();
      await clientA.close();
      await clientB.close();
      await sim.close();
    }
  }

  const warnings = (events: ExecutionEvent[], pattern: RegExp) =>
    events.filter((event) => event.type === 'warning' && pattern.test(event.message));

  it('B re-sends the unanswered create: A sends nothing after its wait, one job is paid', async () => {
    // B, told to re-send uncertain creates, waits only briefly for a late answer (well before A's
    // Retry-After ends), then re-sends.
    const { stats, summaryB, eventsA, errorA } = await takeOverDuringWait({
      onUncertain: 'resend',
      lateAnswerWindowMs: 500,
    });
    // One job paid for v1, from all machines: A's 429 and B's create reached the service, nothing else.
    expect(stats.jobsCreated).toBe(1);
    expect(stats.requests['POST /stock-videos/create']).toBe(2);
    expect(summaryB.jobs.map((job) => `${job.id} ${job.outcome}`)).toEqual(['v1 done']);
    // A ended on its lost lease, and paid nothing.
    expect(errorA).toMatchObject({ code: 'STATE_LOCKED' });
    expect(eventsA.some((event) => event.type === 'job-created')).toBe(false);
    expect(warnings(eventsA, /paid/)).toEqual([]);
  });

  it('B waits for a late answer: A keeps "nothing made" for it, and B creates the job', async () => {
    const { stats, summaryB, eventsA, eventsB } = await takeOverDuringWait({});
    expect(stats.jobsCreated).toBe(1);
    expect(stats.requests['POST /stock-videos/create']).toBe(2);
    expect(summaryB.jobs.map((job) => `${job.id} ${job.outcome}`)).toEqual(['v1 done']);
    expect(warnings(eventsB, /waiting up to \d+ s for the answer/)).toHaveLength(1);
    expect(eventsB.some((event) => event.type === 'job-created' && event.id === 'v1')).toBe(true);
    // A learned its lease was gone before re-sending, and said that nothing was made.
    expect(
      warnings(eventsA, /its refusal \(NOT_SENT: nothing was made\) is kept in the state as a late record/),
    ).toHaveLength(1);
    expect(eventsA.some((event) => event.type === 'job-created')).toBe(false);
  });
});
