import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ExecutionEvent, ExecutionSummary } from '../../src/execute/events.js';
import { executePlan } from '../../src/execute/executor.js';
import type { ExecuteOptions } from '../../src/execute/options.js';
import type { Plan, PlannedJob } from '../../src/plan/types.js';
import { createServiceClient } from '../../src/service/client.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import type { JobState } from '../../src/state/job-state.js';
import { openJournal } from '../../src/state/journal.js';
import { replayJournal } from '../../src/state/replay.js';
import { createMemoryUploadCache } from '../../src/state/upload-cache.js';

/** The executor against the simulator's dialects and hostile answers (issues #7, #11) over real HTTP. */

let dir: string;
let sim: Simulator | undefined;
let client: ServiceClient | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-exec-dialect-'));
});
afterEach(async () => {
  await client?.close();
  await sim?.close();
  client = undefined;
  sim = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function startService(
  options: SimulatorOptions = {},
): Promise<{ sim: Simulator; client: ServiceClient }> {
  sim = await startSimulator({ timeScale: 0.002, seed: 7, ...options });
  client = createServiceClient({
    baseUrl: sim.baseUrl,
    apiKey: sim.apiKey,
    retry: { maxRetries: 2, baseDelayMs: 5, maxDelayMs: 20 },
  });
  return { sim, client };
}

function imageJob(id: string, prompt: string): PlannedJob {
  return {
    id,
    kind: 'image',
    model: 'chatgpt-image-sangtao',
    prompt,
    params: { format: 'png', resolution: '1K' },
    estimatedCredits: 4,
    payloadHash: createHash('sha256').update(`${id}:${prompt}`).digest('hex'),
    source: { matrixValues: {}, specIndex: 0, origins: {} } as unknown as PlannedJob['source'],
  };
}

const plan = (jobs: PlannedJob[]): Plan => ({
  pipeline: 'it',
  manifestFile: join(dir, 'm.yaml'),
  jobs,
  warnings: [],
});

async function run(
  service: ServiceClient,
  jobs: PlannedJob[],
  options: Partial<ExecuteOptions> = {},
  signal: AbortSignal = new AbortController().signal,
  onEvent: (event: ExecutionEvent) => void = () => undefined,
): Promise<{ summary: ExecutionSummary; events: ExecutionEvent[]; state: Map<string, JobState> }> {
  const journalPath = join(dir, 'journal.jsonl');
  const readState = async () => replayJournal(await readFile(journalPath, 'utf8').catch(() => '')).jobs;
  const journal = await openJournal(journalPath);
  const events: ExecutionEvent[] = [];
  try {
    const summary = await executePlan(
      plan(jobs),
      {
        client: service,
        journal,
        state: await readState(),
        clock: systemClock,
        uploadCache: createMemoryUploadCache(),
        signal,
        onEvent(event) {
          events.push(event);
          onEvent(event);
        },
      },
      {
        runId: 'it-run',
        pollIntervalMs: [10, 30],
        firstPollAfterMs: 20,
        retry: { backoffMs: 5 },
        download: true,
        outputDir: join(dir, 'out'),
        ...options,
      },
    );
    return { summary, events, state: await readState() };
  } finally {
    await journal.close();
  }
}

const PROMPT = 'A lighthouse on a cliff at dawn, watercolor';

describe('a complete job without a result the runner recognises (#7.9)', () => {
  it('is uncertain with its job id kept and the fields named, and is never created again', async () => {
    const { sim, client } = await startService({ dialect: { results: 'none' } });
    const first = await run(client, [imageJob('a', PROMPT)]);
    expect(first.summary.counts.uncertain).toBe(1);
    expect(first.summary.counts.done).toBe(0);
    const jobId = first.summary.jobs[0]?.jobId;
    expect(jobId).toMatch(/^job_/);
    const uncertain = first.events.find((event) => event.type === 'job-uncertain');
    expect(uncertain).toMatchObject({ action: 'skipped' });
    expect(uncertain?.type === 'job-uncertain' ? uncertain.reason : '').toMatch(
      new RegExp(
        `job ${jobId ?? ''} "complete" but names no result the runner recognises \\(looked in resultImages, resultUrls, resultUrl, resultImage\\); the answer had: jobId "${jobId ?? ''}", status "complete", .*output \\{"note":"stored elsewhere"\\}`,
      ),
    );
    expect(first.state.get('a')?.status).toBe('uncertain');
    expect(first.state.get('a')?.attempts.at(-1)?.jobId).toBe(jobId);

    // Even when uncertain creates may be re-sent, a job the service made is followed, not paid again.
    const second = await run(client, [imageJob('a', PROMPT)], { onUncertain: 'resend' });
    expect(second.summary.counts.uncertain).toBe(1);
    expect(sim.stats().jobsCreated).toBe(1);
  });

  it('is done when the result is only in resultImage, with numbers as strings', async () => {
    const { client } = await startService({ dialect: { results: 'result-image', numbersAsStrings: true } });
    const result = await run(client, [imageJob('a', PROMPT)]);
    expect(result.summary.counts.done).toBe(1);
    expect(result.summary.jobs[0]?.files).toHaveLength(1);
  });

  it('shows failure text sent in errorMessage for a "cancelled" job', async () => {
    const { client } = await startService({
      dialect: { failureText: 'errorMessage', failedStatus: 'cancelled' },
    });
    const result = await run(client, [imageJob('a', `${PROMPT} [[fail:CONTENT_REJECTED]]`)]);
    expect(result.summary.counts.failed).toBe(1);
    expect(result.events.find((event) => event.type === 'job-failed')).toMatchObject({
      failureKind: 'CONTENT_REJECTED',
      message: 'The request was rejected by the content policy.',
    });
  });
});

describe('the starting concurrency (#7.12)', () => {
  it('starts at the subscription maxConcurrentJobs, so even the first wave stays below it', async () => {
    const { sim, client } = await startService({ dialect: { maxConcurrentJobs: 2 } });
    const jobs = Array.from({ length: 6 }, (_, i) => imageJob(`j${i}`, `${PROMPT} number ${i}`));
    const result = await run(client, jobs);
    expect(result.summary.counts.done).toBe(6);
    expect(sim.stats().maxOpenAtOnce).toBe(2);
    expect(result.events.find((event) => event.type === 'concurrency-changed')).toEqual({
      type: 'concurrency-changed',
      from: 4,
      to: 2,
      reason: 'the subscription allows 2 jobs at once (maxConcurrentJobs)',
    });
  });

  it('never goes above --concurrency even when the subscription allows more', async () => {
    const { sim, client } = await startService({ dialect: { maxConcurrentJobs: 3 } });
    const jobs = Array.from({ length: 4 }, (_, i) => imageJob(`j${i}`, `${PROMPT} number ${i}`));
    await run(client, jobs, { concurrency: 1 });
    expect(sim.stats().maxOpenAtOnce).toBe(1);
  });

  it.each(['missing', 'odd'] as const)(
    'falls back to 4 with a note when the subscription is %s',
    async (kind) => {
      // Jobs of 400 ms: all five creates happen while the first four still run.
      const { sim, client } = await startService({
        dialect: { subscription: kind },
        jobDurationMs: { image: 200_000 },
      });
      const jobs = Array.from({ length: 5 }, (_, i) => imageJob(`j${i}`, `${PROMPT} number ${i}`));
      const result = await run(client, jobs);
      expect(result.summary.counts.done).toBe(5);
      expect(sim.stats().maxOpenAtOnce).toBe(4);
      const notes = result.events.filter((event) => event.type === 'warning').map((event) => event.message);
      expect(notes).toEqual([
        kind === 'missing'
          ? 'The service has no subscription endpoint (GET /account/subscription): starting with 4 jobs at once.'
          : 'The subscription does not report a usable maxConcurrentJobs: starting with 4 jobs at once.',
      ]);
    },
  );
});

describe('deadlines against slow answers (#11.6)', () => {
  it('a drip-fed poll answer does not hold the job past its deadline', async () => {
    // A poll answer of ~250 bytes at one byte per 200 ms would take ~50 s.
    const { client } = await startService({ hostile: { dripPollMs: 200 } });
    const result = await run(client, [imageJob('a', PROMPT)], { jobDeadlineMs: 300 });
    expect(result.summary.counts['still-running']).toBe(1);
    expect(result.state.get('a')?.status).toBe('open');
    expect(result.summary.jobs[0]?.jobId).toMatch(/^job_/);
  });

  it('Ctrl-C stops a drip-fed download, removes the partial file and keeps the result URL', async () => {
    const { client } = await startService({ hostile: { dripDownloadMs: 20 } });
    const controller = new AbortController();
    const result = await run(client, [imageJob('a', PROMPT)], {}, controller.signal, (event) => {
      if (event.type === 'job-completed') setTimeout(() => controller.abort(new Error('SIGINT')), 100);
    });
    expect(result.summary.counts.done).toBe(1);
    expect(result.summary.counts.downloadFailures).toBe(1);
    expect(result.summary.exitReason).toBe('interrupted');
    expect(await readdir(join(dir, 'out'))).toEqual([]);
    expect(result.state.get('a')?.attempts.at(-1)?.resultUrls).toHaveLength(1);
    expect(result.state.get('a')?.downloads).toEqual([]);
    expect(
      result.events.some(
        (event) => event.type === 'warning' && event.message.includes('stopped by the interrupt'),
      ),
    ).toBe(true);
  });
});
