import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { createServiceClient, type ServiceClientOptions } from '../../src/service/client.js';
import { NetworkError, NotFoundError, UnexpectedResponseError } from '../../src/service/errors.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import type { ClientEvent } from '../../src/service/client-event.js';
import type { JobRecord } from '../../src/service/types.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { downloadToPath } from '../download-to-path.js';
import { getJobKind } from '../../src/kinds/index.js';

/**
 * The client against every answer shape of the simulator's dialects and hostile options (issues #7
 * and #11), over real HTTP on 127.0.0.1.
 */

const IMAGE_MODEL = 'chatgpt-image-sangtao';
const PROMPT = 'a red fox crossing a snowy field at dawn';
const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5 };

const opened: { close(): Promise<void> }[] = [];
let dir: string;

async function startPair(
  simOptions: SimulatorOptions = {},
  clientOptions: Partial<ServiceClientOptions> = {},
): Promise<{ sim: Simulator; client: ServiceClient; events: ClientEvent[] }> {
  const sim = await startSimulator({ timeScale: 0.002, seed: 7, ...simOptions });
  const events: ClientEvent[] = [];
  const client = createServiceClient({
    baseUrl: sim.baseUrl,
    apiKey: sim.apiKey,
    retry: FAST_RETRY,
    onEvent: (event) => events.push(event),
    ...clientOptions,
  });
  opened.push(client, sim);
  return { sim, client, events };
}

async function createAndWait(client: ServiceClient, prompt = PROMPT): Promise<JobRecord> {
  const creation = await client.createJob({
    endpoint: getJobKind('image'),
    body: { model: IMAGE_MODEL, prompt },
  });
  for (let i = 0; i < 500; i++) {
    const record = await client.getJob(creation.jobId);
    if (record.phase !== 'queued' && record.phase !== 'running') return record;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('job did not end');
}

/** A clock whose sleeps end only when the test advances it. */
function createManualClock(): Clock & { advance(ms: number): void; sleepers(): number } {
  let now = 1_800_000_000_000;
  const waiting: { until: number; resolve(): void }[] = [];
  return {
    now: () => now,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted === true) {
          reject(signal.reason as Error);
          return;
        }
        waiting.push({ until: now + ms, resolve });
      });
    },
    advance(ms) {
      now += ms;
      for (const sleeper of waiting.splice(0)) {
        if (sleeper.until <= now) sleeper.resolve();
        else waiting.push(sleeper);
      }
    },
    sleepers: () => waiting.length,
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-dialects-'));
});
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('balance and create answers read by what the runner needs (#7.8)', () => {
  it.each([
    ['available-only', {}],
    ['credits-only', {}],
    ['available-only', { numbersAsStrings: true }],
    ['credits-only', { numbersAsStrings: true }],
  ] as const)('reads a %s balance %j and drops the apiKey', async (balance, extra) => {
    const { sim, client } = await startPair({
      dialect: { balance, ...extra },
      legacyApiKey: 'legacy-secret-abcdef',
      account: { freeCredit: 20, purchasedCredit: 30 },
    });
    const read = await client.getBalance();
    expect(read).toEqual({ availableCredit: 50 });
    expect(JSON.stringify(read)).not.toContain('legacy-secret-abcdef');
    expect(sim.stats().requests['GET /account/balance']).toBe(1);
  });

  it('reads every figure of a full balance sent as strings', async () => {
    const { client } = await startPair({ dialect: { numbersAsStrings: true } });
    const read = await client.getBalance();
    expect(read.availableCredit).toBe(1200);
    expect(read.freeCredit).toBe(200);
    expect(read.lockedCredit).toBe(0);
  });

  it('names the missing field when a balance has no credit figure at all', async () => {
    const { client } = await startPair({
      dialect: { balance: 'none' },
      legacyApiKey: 'legacy-secret-abcdef',
    });
    const error = await client.getBalance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toBe(
      'GET /account/balance: data.availableCredit: required field is missing (and no older `credits` either)',
    );
    expect(JSON.stringify(error)).not.toContain('legacy-secret-abcdef');
  });

  it('accepts a create answer with only jobId, and one with numbers as strings', async () => {
    const minimal = await startPair({ dialect: { creation: 'job-id-only' } });
    const created = await minimal.client.createJob({
      endpoint: getJobKind('image'),
      body: { model: IMAGE_MODEL, prompt: PROMPT },
    });
    expect(created).toEqual({ jobId: expect.stringMatching(/^job_/) as unknown, status: '' });

    const strings = await startPair({
      dialect: { numbersAsStrings: true },
      account: { subscriptionImageQuota: 0 },
    });
    const paid = await strings.client.createJob({
      endpoint: getJobKind('image'),
      body: { model: IMAGE_MODEL, prompt: PROMPT },
    });
    expect(paid.creditCost).toBe(4);
    expect(paid.queuePosition).toBe(0);
    expect(paid.concurrency).toBe(4);
  });
});

describe('polled jobs in every shape (#7.9)', () => {
  it.each(['result-url', 'result-urls', 'result-image'] as const)(
    'finds the result of a job that names it only in %s',
    async (results) => {
      const { client } = await startPair({ dialect: { results, numbersAsStrings: true } });
      const record = await createAndWait(client);
      expect(record.phase).toBe('complete');
      expect(record.resultUrls).toHaveLength(1);
      expect(record.resultUrls[0]).toMatch(/\/__results\/job_.*\.png$/);
      expect(record.unrecognizedResult).toBeUndefined();
    },
  );

  it('describes a complete job with no result field it recognises, instead of zero results', async () => {
    const { client } = await startPair({ dialect: { results: 'none' } });
    const record = await createAndWait(client);
    expect(record.phase).toBe('complete');
    expect(record.resultUrls).toEqual([]);
    expect(record.unrecognizedResult).toContain('output {"note":"stored elsewhere"}');
  });

  it.each([
    ['errorMessage', 'cancelled', 'rejected by the content policy'],
    ['step', 'FAILED', 'step: The request was rejected'],
    ['error', 'canceled', 'rejected by the content policy'],
  ] as const)('reads failure text in %s with status %s', async (failureText, failedStatus, expected) => {
    const { client } = await startPair({ dialect: { failureText, failedStatus } });
    const record = await createAndWait(client, `${PROMPT} [[fail:CONTENT_REJECTED]]`);
    expect(record.phase).toBe('failed');
    expect(record.status).toBe(failedStatus);
    expect(record.failureKind).toBe('CONTENT_REJECTED');
    expect(record.error).toContain(expected);
  });
});

describe('the account-wide pause after HTTP 429 (#7.11)', () => {
  it('a 429 on a poll holds a concurrent create until Retry-After passes, and is reported once', async () => {
    const clock = createManualClock();
    const { sim, client, events } = await startPair({}, { clock, retry: { maxRetries: 3 } });
    const first = await client.createJob({
      endpoint: getJobKind('image'),
      body: { model: IMAGE_MODEL, prompt: PROMPT },
    });

    sim.rateLimitNext(1, 5);
    const poll = client.getJob(first.jobId);
    await until(() => clock.sleepers() === 1);
    const create = client.createJob({
      endpoint: getJobKind('image'),
      body: { model: IMAGE_MODEL, prompt: `${PROMPT} 2` },
    });
    await until(() => clock.sleepers() === 2);
    // Paused: the second create has not been sent.
    expect(sim.stats().requests['POST /agents/jobs/create']).toBe(1);

    clock.advance(4_999);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sim.stats().requests['POST /agents/jobs/create']).toBe(1);
    clock.advance(1);
    const [record, second] = await Promise.all([poll, create]);
    expect(record.jobId).toBe(first.jobId);
    expect(second.jobId).not.toBe(first.jobId);
    expect(sim.stats().requests['POST /agents/jobs/create']).toBe(2);
    expect(sim.stats().rateLimitedOnDemand).toBe(1);
    expect(events.filter((event) => event.type === 'rate-limit-pause')).toEqual([
      expect.objectContaining({ method: 'GET', delayMs: 5000 }),
    ]);
  });

  it('treats AGENT_QUEUE_FULL sent as HTTP 200 success:false like a 429 and retries the create', async () => {
    const { sim, client, events } = await startPair(
      { concurrencyLimit: 1, maxQueueDepth: 0, dialect: { queueFull: 'http-200' } },
      { retry: { queueFullDelayMs: 30, maxRetries: 20 } },
    );
    await client.createJob({ endpoint: getJobKind('image'), body: { model: IMAGE_MODEL, prompt: PROMPT } });
    const second = await client.createJob({
      endpoint: getJobKind('image'),
      body: { model: IMAGE_MODEL, prompt: `${PROMPT} 2` },
    });
    expect(second.jobId).toMatch(/^job_/);
    expect(sim.stats().jobsCreated).toBe(2);
    expect(sim.stats().requests['POST /agents/jobs/create']).toBeGreaterThan(2);
    const pauses = events.filter((event) => event.type === 'rate-limit-pause');
    expect(pauses.length).toBeGreaterThan(0);
    expect(pauses[0]).toMatchObject({ reason: 'HTTP 200 AGENT_QUEUE_FULL', delayMs: 30 });
  });
});

describe('a base URL without /api/v2 (#7.13)', () => {
  it('gets a hint about the base URL on 404', async () => {
    const { sim } = await startPair();
    const client = createServiceClient({
      baseUrl: sim.baseUrl.replace(/\/api\/v2$/, ''),
      apiKey: sim.apiKey,
    });
    opened.push(client);
    const error = await client.listModels().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).hint).toBe(
      `The base URL ${sim.baseUrl.replace(/\/api\/v2$/, '')} does not end in /api/v2: try --base-url ${sim.baseUrl} (or MEDIAGEN_BASE_URL)`,
    );
  });
});

describe('huge answers are capped (#11.5)', () => {
  it('caps a huge failure text at 2 KB with a note', async () => {
    const { client } = await startPair({ hostile: { errorTextBytes: 200_000 } });
    const record = await createAndWait(client, `${PROMPT} [[fail:CONTENT_REJECTED]]`);
    expect(record.error?.length).toBeLessThan(2_100);
    expect(record.error).toMatch(/… \[\d+ more characters cut\]$/);
  });

  it('caps a huge service error message in the error it throws', async () => {
    const { client } = await startPair({ hostile: { errorTextBytes: 200_000 } });
    const error = await client
      .createJob({ endpoint: getJobKind('image'), body: { model: 'no-such-model', prompt: PROMPT } })
      .catch((e: unknown) => e);
    expect((error as Error).message.length).toBeLessThan(700);
    expect((error as Error).message).toContain('more characters cut');
  });

  it('refuses a JSON answer over the cap with a clear error', async () => {
    const { client } = await startPair({ hostile: { paddingBytes: 50_000 } }, { maxResponseBytes: 10_000 });
    const error = await client.getBalance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(
      /^GET \/account\/balance: the answer is larger than the 9\.8 KB the runner reads \(received content-length \d+\)/,
    );
  });

  it('refuses a download over --max-download-size and leaves no partial file', async () => {
    const { client } = await startPair({}, { maxDownloadBytes: 16 });
    const record = await createAndWait(client);
    const target = join(dir, 'capped', 'result.png');
    // Made first, so that a partial file left in it would show.
    await mkdir(join(dir, 'capped'), { recursive: true });
    const error = await downloadToPath(client, record.resultUrls[0] ?? '', target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toContain('larger than --max-download-size 16 bytes');
    expect(await readdir(join(dir, 'capped'))).toEqual([]);
  });
});

describe('slow answers meet deadlines (#11.6)', () => {
  it('gives a drip-fed download one total deadline, retries included, and removes the partial file', async () => {
    const { client } = await startPair({ hostile: { dripDownloadMs: 50 } }, { downloadTimeoutMs: 300 });
    const record = await createAndWait(client);
    const target = join(dir, 'slow', 'result.png');
    // Made first, so that a partial file left in it would show.
    await mkdir(join(dir, 'slow'), { recursive: true });
    const error = await downloadToPath(client, record.resultUrls[0] ?? '', target).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toContain('the download did not finish within 300 ms');
    expect(await readdir(join(dir, 'slow'))).toEqual([]);
  });

  it('gives a read one total deadline however slowly its answer drips', async () => {
    const { client } = await startPair(
      { hostile: { dripPollMs: 100 } },
      { callDeadlineMs: 400, requestTimeoutMs: 60_000 },
    );
    const created = await client.createJob({
      endpoint: getJobKind('image'),
      body: { model: IMAGE_MODEL, prompt: PROMPT },
    });
    const error = await client.getJob(created.jobId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toBe(
      `GET /jobs/${created.jobId} failed: no answer in time: no usable answer within 400 ms, retries included`,
    );
  });

  it('stops a download when its signal aborts (Ctrl-C) and removes the partial file', async () => {
    const { client } = await startPair({ hostile: { dripDownloadMs: 20 } });
    const record = await createAndWait(client);
    const target = join(dir, 'interrupted', 'result.png');
    // Made first, so that a partial file left in it would show.
    await mkdir(join(dir, 'interrupted'), { recursive: true });
    const controller = new AbortController();
    const download = downloadToPath(client, record.resultUrls[0] ?? '', target, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('SIGINT')), 100);
    await expect(download).rejects.toThrow('SIGINT');
    expect(await readdir(join(dir, 'interrupted'))).toEqual([]);
  });
});
