/**
 * Benchmark: 200 image jobs through the real executor against the time-scaled simulator, every job
 * lasting exactly 45 s of simulated time and no faults. Reports the makespan against the ideal
 * `ceil(N / 4) × jobDuration` (4 jobs at once), and HTTP requests and polls per job. The executor's
 * poll timing is the production policy scaled by the same factor as the simulator.
 * Goal (reported, never enforced): ratio < 1.05.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../dist/clock.js';
import { executePlan } from '../dist/execute/index.js';
import { estimateRemainingMs, nextPollDelay } from '../dist/execute/poll-schedule.js';
import { getJobKind } from '../dist/kinds/index.js';
import { createServiceClient } from '../dist/service/client.js';
import { startSimulator } from '../dist/simulator/index.js';
import { openStoredRun } from '../dist/state/index.js';
import { emitResult, note, round } from './measure.js';

const JOBS = Number(process.env.BENCH_EXECUTOR_JOBS ?? 200);
const CONCURRENCY = 4;
const JOB_DURATION_MS = 45_000;
/** 45 s of simulated time takes 0.495 s of real time (the top of the 0.25–0.5 s range: per-request costs that do not scale weigh least). */
const TIME_SCALE = 0.011;
/** The executor's production poll interval (src/execute/options.ts): 3 to 5 s, aimed by progress. */
const POLL_INTERVAL_MS = [3_000, 5_000];

function imageJob(index) {
  const id = `bench-${String(index).padStart(3, '0')}`;
  const prompt = `A watercolor advertisement of latte number ${index} on a wooden table in soft light`;
  return {
    id,
    kind: 'image',
    model: 'chatgpt-image-sangtao',
    prompt,
    params: { format: 'png', resolution: '1K', aspectRatio: '16:9' },
    estimatedCredits: 4,
    payloadHash: createHash('sha256').update(`${id}:${prompt}`).digest('hex'),
    source: {
      matrixValues: {},
      specIndex: 0,
      origins: { job: ['jobs', 0], model: ['jobs', 0, 'model'], params: {} },
    },
  };
}

/**
 * Mean time between a 45 s job's end and the poll that sees it, under the executor's policy: first
 * poll at the kind's delay, then `nextPollDelay` fed with whole-percent progress like the service's.
 */
function expectedPollLagMs(trials = 4000) {
  const firstPoll = getJobKind('image').firstPollAfterMs;
  let total = 0;
  for (let trial = 0; trial < trials; trial++) {
    let now = firstPoll;
    let first;
    for (;;) {
      if (now >= JOB_DURATION_MS) {
        total += now - JOB_DURATION_MS;
        break;
      }
      const sample = { at: now, progress: Math.floor((now / JOB_DURATION_MS) * 100) };
      first ??= sample;
      now += nextPollDelay(POLL_INTERVAL_MS, Math.random, estimateRemainingMs(first, sample));
    }
  }
  return total / trials;
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'runner-bench-exec-'));
  const sim = await startSimulator({
    timeScale: TIME_SCALE,
    seed: 11,
    jobDurationMs: { image: JOB_DURATION_MS },
    account: { freeCredit: 0, purchasedCredit: 100_000, subscriptionImageQuota: 0 },
  });
  const client = createServiceClient({ baseUrl: sim.baseUrl, apiKey: sim.apiKey });
  const manifestFile = join(dir, 'bench.yaml');
  // `BENCH_STATE_URL=postgres://…`: the state in PostgreSQL (a fresh run id each time), else a folder.
  const stateUrl = process.env.BENCH_STATE_URL;
  const state = await openStoredRun({
    manifestFile,
    pipeline: 'bench-exec',
    runId: stateUrl === undefined ? 'bench' : `bench-${Date.now()}`,
    ...(stateUrl === undefined ? {} : { stateUrl }),
  });
  try {
    const plan = {
      pipeline: 'bench-exec',
      manifestFile,
      jobs: Array.from({ length: JOBS }, (_, i) => imageJob(i)),
      warnings: [],
    };
    const events = { created: 0, completed: 0, failed: 0, warnings: 0 };
    const options = {
      runId: 'bench',
      concurrency: CONCURRENCY,
      pollIntervalMs: POLL_INTERVAL_MS.map((ms) => Math.round(ms * TIME_SCALE)),
      firstPollAfterMs: Math.round(getJobKind('image').firstPollAfterMs * TIME_SCALE),
    };
    note(
      `${JOBS} jobs of ${JOB_DURATION_MS * TIME_SCALE} ms, polls every ${options.pollIntervalMs.join('–')} ms, first after ${options.firstPollAfterMs} ms`,
    );
    const start = performance.now();
    const summary = await executePlan(
      plan,
      {
        client,
        // As apply passes it, the lock verified before every create (#24.1); no snapshots, and on
        // PostgreSQL no coordination (one process, the executor's own limit), as measured before #34.1.
        run: { journal: state.journal, lock: state.lock, jobs: state.jobs, uploadCache: state.uploadCache },
        clock: systemClock,
        signal: new AbortController().signal,
        onEvent(event) {
          if (event.type === 'job-created') events.created++;
          else if (event.type === 'job-completed') events.completed++;
          else if (event.type === 'job-failed') events.failed++;
          else if (event.type === 'warning') events.warnings++;
        },
      },
      options,
    );
    const makespanMs = performance.now() - start;
    const stats = sim.stats();
    const requests = Object.values(stats.requests).reduce((sum, n) => sum + n, 0);
    const polls = Object.values(stats.pollsPerJob).reduce((sum, n) => sum + n, 0);
    const idealMs = round(Math.ceil(JOBS / CONCURRENCY) * JOB_DURATION_MS * TIME_SCALE);
    // A job's end is seen at the next poll. The policy is scale-free (first poll, interval and job
    // length all scale together), so its share of the ratio is computed at full scale from the
    // executor's own scheduling functions.
    const policyRatio = 1 + expectedPollLagMs() / JOB_DURATION_MS;
    const overheadPerSlotMs = (makespanMs - idealMs * policyRatio) / Math.ceil(JOBS / CONCURRENCY);
    note(`done in ${round(makespanMs)} ms (ideal ${idealMs} ms)`);

    emitResult('executor-200', {
      backend: stateUrl === undefined ? 'folder' : 'postgres',
      jobs: JOBS,
      done: summary.counts.done,
      exitReason: summary.exitReason,
      timeScale: TIME_SCALE,
      jobDurationRealMs: round(JOB_DURATION_MS * TIME_SCALE),
      makespanMs: round(makespanMs),
      idealMs,
      ratio: round(makespanMs / idealMs, 3),
      pollPolicyRatio: round(policyRatio, 3),
      overheadPerSlotMs: round(overheadPerSlotMs),
      // Per-slot costs (HTTP, fsync) do not shrink with timeScale; at full scale they weigh ~1/timeScale less.
      estimatedFullScaleRatio: round(policyRatio + Math.max(0, overheadPerSlotMs) / JOB_DURATION_MS, 3),
      requests,
      requestsPerJob: round(requests / JOBS, 2),
      pollsPerJob: round(polls / JOBS, 2),
      requestsByRoute: stats.requests,
      maxRunningAtOnce: stats.maxRunningAtOnce,
      jobsCreated: stats.jobsCreated,
      idempotentReplays: stats.idempotentReplays,
      warnings: events.warnings,
      goal: 'ratio < 1.05',
    });
  } finally {
    await state.close();
    await client.close();
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
