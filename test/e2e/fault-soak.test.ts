import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { StatusView } from '../../src/state/status-view.js';
import {
  findMismatchedDownloads,
  makeWorkDir,
  readIntentKeys,
  readStatus,
  simulatorEnv,
  writeImageMatrixManifest,
} from './apply-fixtures.js';
import { runCli, type CliResult } from './run-cli.js';

/** 45 s simulated image jobs take 0.27 s real. */
const TIME_SCALE = 0.006;
const IDEMPOTENCY_WINDOW_MS = Math.ceil(300_000 / TIME_SCALE);
const RETRY_AFTER_SECONDS = 1;
const IMAGE_COST = 4;
/** The service client's default retries per request (DEFAULT_RETRY_OPTIONS.maxRetries). */
const MAX_RETRIES = 5;

interface LogEvent {
  type: string;
  method?: string;
  path?: string;
  status?: number;
  delayMs?: number;
  reason?: string;
  attempt?: number;
}

interface LogLine {
  time: number;
  event?: LogEvent;
}

/**
 * The fault mix of the issue (15 % HTTP 500, 10 % HTTP 429 with `Retry-After: 1`, 3 % socket resets
 * per API request) against one `runner apply` of 20 image jobs: everything ends done, nothing is
 * created or charged twice, and every 429 is waited out for at least its `Retry-After`.
 */
describe('apply under a storm of 500s, 429s and resets', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let manifest: { file: string; jobIds: string[] };
  let dir: string;
  let stateDir: string;
  let outputDir: string;
  let result: CliResult;
  /** Set only when the first apply gave up after exhausted retries (see beforeAll). */
  let resumed: CliResult | undefined;
  let exhausted = false;
  let log: LogLine[];
  let view: StatusView;

  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      seed: 424_242,
      idempotencyWindowMs: IDEMPOTENCY_WINDOW_MS,
      account: { subscriptionImageQuota: 0 },
      faults: { serverError: 0.15, rateLimit: 0.1, reset: 0.03, retryAfterSeconds: RETRY_AFTER_SECONDS },
    });
    env = simulatorEnv(simulator);
    dir = await makeWorkDir('soak');
    manifest = await writeImageMatrixManifest(dir, {
      name: 'fault-soak',
      subjects: ['fox', 'owl', 'bear', 'heron', 'lynx'],
      styles: ['watercolor', 'pencil', 'oil', 'woodcut'],
    });
    stateDir = join(dir, 'state');
    outputDir = join(dir, 'out');
    const applyOnce = async (logFile: string) => {
      const run = await runCli(
        [
          'apply',
          manifest.file,
          '--yes',
          '--state-dir',
          stateDir,
          '--output',
          outputDir,
          '--poll-interval',
          '60-90',
          '--first-poll',
          '200',
          '--log-file',
          logFile,
        ],
        { env, timeoutMs: 80_000 },
      );
      const lines = (await readFile(logFile, 'utf8'))
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as LogLine);
      return { run, lines };
    };
    const first = await applyOnce(join(dir, 'apply-1.log'));
    result = first.run;
    log = first.lines;
    exhausted = log.some((line) => line.event?.type === 'retry' && line.event.attempt === MAX_RETRIES);
    if (result.code !== 0 && exhausted) {
      // About 1 run in 100: with 28 % of requests failing, some request failed 6 times in a row and
      // the client gave up as designed (a create then stays unanswered, resumable). The resume must
      // finish the run; the money checks below cover both runs.
      const second = await applyOnce(join(dir, 'apply-2.log'));
      resumed = second.run;
      log = [...log, ...second.lines];
    }
    view = await readStatus(manifest.file, stateDir, env);
  }, 90_000);
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('finishes every job with exit 0 and intact downloads', async () => {
    if (resumed === undefined) expect(result.code, result.stderr).toBe(0);
    else {
      // The only acceptable reason for a failed first run: a request exhausted its retries.
      expect(exhausted, result.stderr).toBe(true);
      expect(resumed.code, resumed.stderr).toBe(0);
    }
    expect(manifest.jobIds).toHaveLength(20);
    expect(view.totals.done).toBe(20);
    expect(view.jobs.filter((job) => job.status !== 'done')).toEqual([]);
    for (const job of view.jobs) expect(job.files.length, job.id).toBeGreaterThanOrEqual(1);
    expect(await findMismatchedDownloads(view)).toEqual([]);
  });

  it('really injected every kind of fault', () => {
    const { faultsInjected } = simulator.stats();
    expect(faultsInjected.serverError).toBeGreaterThan(0);
    expect(faultsInjected.rateLimit).toBeGreaterThan(0);
    expect(faultsInjected.reset).toBeGreaterThan(0);
  });

  it('created and charged each of the 20 jobs exactly once', async () => {
    const stats = simulator.stats();
    expect(stats.jobsCreated).toBe(20);
    expect(stats.creditsCharged).toBe(20 * IMAGE_COST);
    expect(view.totals.creditsSpent).toBe(20 * IMAGE_COST);
    const keys = await readIntentKeys(stateDir);
    const owners = stats.jobs.map((job) => keys.get(job.idempotencyKey ?? '') ?? `unknown ${job.jobId}`);
    expect(owners.sort()).toEqual([...manifest.jobIds].sort());
    expect(view.jobs.map((job) => job.jobId).sort()).toEqual(stats.jobs.map((job) => job.jobId).sort());
  });

  it('never ignores Retry-After: every retry after a 429 waits at least its value', () => {
    const retries = log.flatMap((line) => (line.event?.type === 'retry' ? [line] : []));
    const after429 = retries.filter((line) => /^HTTP 429\b/.test(line.event?.reason ?? ''));
    expect(after429.length).toBeGreaterThan(0);
    for (const line of after429) {
      expect(line.event?.delayMs, JSON.stringify(line.event)).toBeGreaterThanOrEqual(
        RETRY_AFTER_SECONDS * 1000,
      );
    }
    // Every injected 429 reached the client, and each was answered by exactly one retry: none was
    // swallowed or turned into a failure. (A request that failed MAX_RETRIES + 1 times in a row is
    // given up on by design; only then may its last 429 lack a retry.)
    const responses429 = log.filter((line) => line.event?.type === 'request' && line.event.status === 429);
    expect(responses429).toHaveLength(simulator.stats().faultsInjected.rateLimit);
    const givenUp = exhausted ? retries.filter((line) => line.event?.attempt === MAX_RETRIES).length : 0;
    expect(after429.length).toBeLessThanOrEqual(responses429.length);
    expect(after429.length).toBeGreaterThanOrEqual(responses429.length - givenUp);
    // The retry did wait: a job's poll path is polled by one loop at a time, so the next logged request
    // on that path started no earlier than the announced delay (a lower bound only; timers never fire early).
    for (const retry of after429) {
      const path = retry.event?.path ?? '';
      if (!path.startsWith('/jobs/')) continue;
      const next = log.find(
        (line) =>
          line.time >= retry.time &&
          line.event?.type === 'request' &&
          line.event.path === path &&
          line !== retry &&
          log.indexOf(line) > log.indexOf(retry),
      );
      expect(next, `no request after ${JSON.stringify(retry.event)}`).toBeDefined();
      if (next === undefined) continue;
      expect(next.time - retry.time).toBeGreaterThanOrEqual((retry.event?.delayMs ?? 0) - 20);
    }
  });

  it('retries 500s and resets too', () => {
    const reasons = log.flatMap((line) => (line.event?.type === 'retry' ? [line.event.reason ?? ''] : []));
    expect(reasons.some((reason) => /^HTTP 500/.test(reason))).toBe(true);
    expect(reasons.some((reason) => /^network/.test(reason))).toBe(true);
    // Every injected 500 reached the client and was logged (the counts above are not vacuous).
    const responses500 = log.filter((line) => line.event?.type === 'request' && line.event.status === 500);
    expect(responses500).toHaveLength(simulator.stats().faultsInjected.serverError);
  });
});
