import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobKind } from '../../src/kinds/index.js';
import { createServiceClient, type ServiceClientOptions } from '../../src/service/client.js';
import {
  AuthenticationError,
  InsufficientCreditsError,
  NotFoundError,
  ServerError,
  ServiceValidationError,
} from '../../src/service/errors.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import type { JobRecord } from '../../src/service/types.js';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../src/simulator/index.js';
import { downloadToPath } from '../download-to-path.js';
import { getJobKind } from '../../src/kinds/index.js';

const IMAGE_MODEL = 'chatgpt-image-sangtao';
const TIME_SCALE = 0.002;
/** Real but tiny waits: the simulator runs on real time. */
const FAST_RETRY = { baseDelayMs: 1, maxDelayMs: 5 };

const opened: { close(): Promise<void> }[] = [];
let dir: string;

async function startPair(
  simOptions: SimulatorOptions = {},
  clientOptions: Partial<ServiceClientOptions> = {},
): Promise<{ sim: Simulator; client: ServiceClient }> {
  const sim = await startSimulator({ timeScale: TIME_SCALE, seed: 7, ...simOptions });
  const client = createServiceClient({
    baseUrl: sim.baseUrl,
    apiKey: sim.apiKey,
    retry: FAST_RETRY,
    ...clientOptions,
  });
  opened.push(client, sim);
  return { sim, client };
}

async function pollUntilDone(client: ServiceClient, jobId: string): Promise<JobRecord> {
  for (let i = 0; i < 500; i++) {
    const record = await client.getJob(jobId);
    if (record.phase === 'complete' || record.phase === 'failed') return record;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`job ${jobId} did not finish`);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'client-int-'));
});

afterAll(async () => {
  for (const item of opened.reverse()) await item.close();
  await rm(dir, { recursive: true, force: true });
});

describe('client against the simulator: every endpoint', () => {
  let sim: Simulator;
  let client: ServiceClient;
  beforeAll(async () => {
    ({ sim, client } = await startPair());
  });

  it('lists models, filtered by category', async () => {
    const all = await client.listModels();
    expect(all.map((m) => m.slug)).toContain(IMAGE_MODEL);
    const render = await client.listModels({ category: 'render' });
    expect(render.length).toBeGreaterThan(0);
    expect(render.every((m) => m.category === 'render')).toBe(true);
    expect(render.length).toBeLessThan(all.length);
  });

  it('reads the balance without the apiKey anywhere', async () => {
    const raw = await request(`${sim.baseUrl}/account/balance`, { headers: { 'x-api-key': sim.apiKey } });
    const legacyKey = ((await raw.body.json()) as { data: { apiKey: string } }).data.apiKey;
    expect(legacyKey.length).toBeGreaterThan(8);

    const balance = await client.getBalance();
    const { freeCredit = NaN, purchasedCredit = NaN, lockedCredit = NaN } = balance;
    expect(balance.availableCredit).toBe(freeCredit + purchasedCredit - lockedCredit);
    expect('apiKey' in balance).toBe(false);
    expect(JSON.stringify(balance)).not.toContain(legacyKey);
    expect(JSON.stringify(balance)).not.toContain(sim.apiKey);
  });

  it('reads the subscription', async () => {
    const subscription = await client.getSubscription();
    expect(subscription?.tier).toEqual(expect.any(String));
    expect(subscription?.quotas).toContainEqual({ capability: 'image', remaining: expect.any(Number) });
  });

  it('creates an image job, polls it to completion and downloads every result with sha256', async () => {
    const creation = await client.createJob({
      endpoint: getJobKind('image'),
      body: { model: IMAGE_MODEL, prompt: 'a red fox crossing a snowy field at dawn' },
      idempotencyKey: 'int-image-1',
    });
    expect(creation.status).toBe('WaitingForAgent');
    const record = await pollUntilDone(client, creation.jobId);
    expect(record.phase).toBe('complete');
    expect(record.resultUrls.length).toBeGreaterThan(0);
    for (const [index, url] of record.resultUrls.entries()) {
      const dest = join(dir, 'image', `${index}.png`);
      const result = await downloadToPath(client, url, dest);
      const bytes = await readFile(dest);
      expect(result.bytes).toBe(bytes.length);
      expect(result.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    }
  });

  const videoBodies: [JobKind, Record<string, unknown>][] = [
    ['render-video', { model: 'render-compose', media: ['https://example.com/a.png'] }],
    ['voiceover-video', { model: 'voiceover-standard', script: 'Three tips for better sleep.' }],
    ['stock-video', { model: 'stock-narrated', script: 'A tour of the Alps.' }],
    ['slideshow-video', { model: 'slideshow-classic', images: ['https://example.com/1.jpg'] }],
    ['article-video', { model: 'article-to-video', articleUrl: 'https://example.com/post' }],
  ];
  it.each(videoBodies)('creates a %s job', async (kind, body) => {
    const creation = await client.createJob({ endpoint: getJobKind(kind), body });
    expect(creation.jobId).toEqual(expect.any(String));
    expect(sim.stats().jobs).toContainEqual(expect.objectContaining({ jobId: creation.jobId, kind }));
    const record = await pollUntilDone(client, creation.jobId);
    expect(record.phase).toBe('complete');
  });

  it('uploads an image and reads it back from publicUrl', async () => {
    const bytes = new Uint8Array(Buffer.from('fake png bytes for upload'));
    const publicUrl = await client.uploadImage({ fileName: 'logo.png', contentType: 'image/png', bytes });
    const result = await downloadToPath(client, publicUrl, join(dir, 'upload', 'logo.png'));
    expect(result).toEqual({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  });

  it('maps 404 for an unknown job and 400 for a wrong model', async () => {
    await expect(client.getJob('no-such-job')).rejects.toBeInstanceOf(NotFoundError);
    const error = await client
      .createJob({
        endpoint: getJobKind('image'),
        body: { model: 'not-a-model', prompt: 'a lighthouse in a storm at night' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceValidationError);
    expect((error as Error).message).toContain('POST /agents/jobs/create failed: HTTP 400');
  });

  it('maps a wrong key to AuthenticationError without echoing it', async () => {
    const wrongKey = 'wrong-key-1234567890';
    const wrong = createServiceClient({ baseUrl: sim.baseUrl, apiKey: wrongKey, retry: FAST_RETRY });
    opened.push(wrong);
    const error = await wrong.listModels().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(`${String(error)} ${JSON.stringify(error)}`).not.toContain(wrongKey);
  });
});

describe('client against the simulator: money', () => {
  it('maps 402 when the account is empty', async () => {
    const { client } = await startPair({
      account: { freeCredit: 0, purchasedCredit: 0, subscriptionImageQuota: 0 },
    });
    const error = await client
      .createJob({
        endpoint: getJobKind('image'),
        body: { model: IMAGE_MODEL, prompt: 'a quiet harbour with boats at dusk' },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientCreditsError);
    expect(error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', status: 402 });
  });

  it('keyed creates survive 500s and resets, each job charged exactly once', async () => {
    const { sim, client } = await startPair(
      { seed: 11, faults: { serverError: 0.25, reset: 0.2 }, account: { subscriptionImageQuota: 0 } },
      { retry: { ...FAST_RETRY, maxRetries: 10 } },
    );
    const jobIds: string[] = [];
    for (let i = 0; i < 8; i++) {
      const creation = await client.createJob({
        endpoint: getJobKind('image'),
        body: { model: IMAGE_MODEL, prompt: `a lantern-lit street in the rain, take ${i}` },
        idempotencyKey: `fault-key-${i}`,
      });
      jobIds.push(creation.jobId);
    }
    const stats = sim.stats();
    expect(stats.faultsInjected.serverError + stats.faultsInjected.reset).toBeGreaterThan(0);
    expect(stats.requests['POST /agents/jobs/create']).toBeGreaterThan(8);
    expect(stats.jobsCreated).toBe(8);
    expect(new Set(jobIds).size).toBe(8);
    expect(stats.jobs.map((job) => job.idempotencyKey).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `fault-key-${i}`).sort(),
    );
    // Some answers were lost after the job was made: the re-sent key must have replayed, not re-charged.
    expect(stats.idempotentReplays).toBeGreaterThan(0);
    const models = await client.listModels({ category: 'image' });
    const unitCost = models.find((m) => m.slug === IMAGE_MODEL)?.creditCost;
    expect(stats.creditsCharged).toBe(8 * Number(unitCost));
  });

  it('an unkeyed create that meets a 500 is not re-sent', async () => {
    const { sim, client } = await startPair({ faults: { serverError: 1 } });
    await expect(
      client.createJob({
        endpoint: getJobKind('image'),
        body: { model: IMAGE_MODEL, prompt: 'a paper boat on a puddle' },
      }),
    ).rejects.toBeInstanceOf(ServerError);
    expect(sim.stats().requests['POST /agents/jobs/create']).toBe(1);
  });
});
