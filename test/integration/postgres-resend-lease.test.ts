import { describe, expect, it, vi } from 'vitest';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import type { ExecuteOptions } from '../../src/execute/options.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import type { RunState } from '../../src/state/state-store.js';
import { pgAvailable } from '../pg-cluster.js';
import { videoJob } from './executor-harness.js';
import {
  executeOnRun,
  joinRun,
  planOf,
  quickOptions,
  startService,
  usePgWorkFolder,
  warningsOf,
} from './pg-work-folder.js';

/** Longer than the 3 s lease: the lease ends while the create waits to be re-sent. */
const RETRY_AFTER_SECONDS = 6;

/**
 * A video create (no idempotency key) answered 429 waits out its `Retry-After` inside the client; the
 * sender's lease ends meanwhile and another machine takes the run over. The waiting create must not
 * be re-sent by a runner that no longer holds the run: the taker may already have re-sent it.
 */
describe.runIf(pgAvailable())('a create re-sent after a 429 wait re-checks the lease (PostgreSQL)', () => {
  const work = usePgWorkFolder('runner-pg-resend-', { leaseTtlMs: 3_000 });

  /**
   * A's create meets a 429 whose Retry-After outlasts its lease, the lease is broken during the wait,
   * and B takes the run over with `optionsB`. Returns what each saw.
   */
  async function takeOverDuringWait(optionsB: Partial<ExecuteOptions>) {
    const { dir, address } = work;
    const url = await work.cluster().createDatabase();
    const store = createPostgresStore(url);
    // One client per machine: each has its own rate-limit gate, as two processes do.
    const { sim, connect } = await startService(5, 2);
    const clientA = connect();
    const clientB = connect();
    const apply = async (
      state: RunState,
      client: ServiceClient,
      events: ExecutionEvent[],
      extra: Partial<ExecuteOptions> = {},
    ): Promise<ExecutionSummary> => {
      await joinRun(state);
      return executeOnRun(planOf(dir, [videoJob('v1', 'a short film v1')]), state, {
        client,
        events,
        options: quickOptions(dir, extra),
      });
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
    expect(warningsOf(eventsA, /paid/)).toEqual([]);
  });

  it('B waits for a late answer: A keeps "nothing made" for it, and B creates the job', async () => {
    const { stats, summaryB, eventsA, eventsB } = await takeOverDuringWait({});
    expect(stats.jobsCreated).toBe(1);
    expect(stats.requests['POST /stock-videos/create']).toBe(2);
    expect(summaryB.jobs.map((job) => `${job.id} ${job.outcome}`)).toEqual(['v1 done']);
    expect(warningsOf(eventsB, /waiting up to \d+ s for the answer/)).toHaveLength(1);
    expect(eventsB.some((event) => event.type === 'job-created' && event.id === 'v1')).toBe(true);
    // A learned its lease was gone before re-sending, and said that nothing was made.
    expect(
      warningsOf(eventsA, /its refusal \(NOT_SENT: nothing was made\) is kept in the state as a late record/),
    ).toHaveLength(1);
    expect(eventsA.some((event) => event.type === 'job-created')).toBe(false);
  });
});
