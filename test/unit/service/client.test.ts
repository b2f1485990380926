import { mkdtemp, open, readFile, readdir, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServiceClient } from '../../../src/service/client.js';
import {
  AuthenticationError,
  InsufficientCreditsError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  ServerError,
  ServiceValidationError,
  UnexpectedResponseError,
} from '../../../src/service/errors.js';
import type { ServiceClient } from '../../../src/service/service-client.js';
import type { ClientEvent } from '../../../src/service/client-event.js';
import { createFakeClock, type FakeClock } from './fake-clock.js';
import { downloadToPath } from '../../download-to-path.js';
import type { OpenResultFile } from '../../../src/results/backends/folder/write-atomically.js';
import { getJobKind } from '../../../src/kinds/index.js';

const ORIGIN = 'https://svc.test';
const BASE = `${ORIGIN}/api/v2/`;
const KEY = 'sk-live-SECRET-0123456789';

let agent: MockAgent;
let clock: FakeClock;
let events: ClientEvent[];
let client: ServiceClient;
/** Every request the service's origin saw, with its headers. */
let seen: { path: string; headers: Record<string, string> }[];

function recordHeaders(path: string) {
  return (headers: Record<string, string>) => {
    seen.push({ path, headers });
    return true;
  };
}

const ok = (data: unknown) => ({ success: true, data, error: null, errorCode: null });
const fail = (error: string, errorCode: string | null = null) => ({ success: false, error, errorCode });

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  clock = createFakeClock();
  events = [];
  seen = [];
  client = createServiceClient({
    baseUrl: BASE,
    apiKey: KEY,
    dispatcher: agent,
    clock,
    random: () => 0.5,
    onEvent: (event) => events.push(event),
  });
});

afterEach(async () => {
  await client.close();
  await agent.close();
});

const api = () => agent.get(ORIGIN);
/**
 * The balance the client reads once per connection before its first other call (issue #32.3): until
 * it is read, the service's error texts are withheld, so tests of those texts answer it first.
 */
const answerFirstBalance = () =>
  api()
    .intercept({ path: '/api/v2/account/balance', method: 'GET' })
    .reply(200, ok({ availableCredit: 1, apiKey: 'legacy-unit-key-0123' }));
const modelA = { slug: 'a', displayName: 'A', category: 'image', creditCost: 2, extra: true };

describe('requests', () => {
  it('joins the base URL, passes the category and sends the key to the API origin', async () => {
    api()
      .intercept({ path: '/api/v2/models?category=image', method: 'GET', headers: recordHeaders('/models') })
      .reply(200, ok([modelA]));
    await expect(client.listModels({ category: 'image' })).resolves.toEqual([modelA]);
    expect(seen[0]?.headers['x-api-key']).toBe(KEY);
    expect(events).toContainEqual(expect.objectContaining({ type: 'request', path: '/models', status: 200 }));
  });

  it('drops apiKey from the balance', async () => {
    api()
      .intercept({ path: '/api/v2/account/balance', method: 'GET' })
      .reply(
        200,
        ok({
          freeCredit: 10,
          purchasedCredit: 5,
          lockedCredit: 1,
          availableCredit: 14,
          hasPurchased: true,
          apiKey: 'legacy-key-XYZ',
          topupMemo: 'MEMO1',
        }),
      );
    const balance = await client.getBalance();
    expect(balance).toEqual({
      freeCredit: 10,
      purchasedCredit: 5,
      lockedCredit: 1,
      availableCredit: 14,
      hasPurchased: true,
      topupMemo: 'MEMO1',
    });
    expect(JSON.stringify(balance)).not.toContain('legacy-key-XYZ');
  });

  it('does not echo the balance key when the balance has the wrong shape', async () => {
    api()
      .intercept({ path: '/api/v2/account/balance', method: 'GET' })
      .reply(
        200,
        ok({
          apiKey: 'legacy-key-XYZ',
          freeCredit: 'lots',
          purchasedCredit: 0,
          lockedCredit: 0,
          availableCredit: 0,
          hasPurchased: false,
        }),
      );
    const error = await client.getBalance().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(String((error as Error).message)).toBe(
      'GET /account/balance: data.freeCredit: expected number, received string',
    );
    expect(JSON.stringify(error)).not.toContain('legacy-key-XYZ');
  });

  it('returns undefined for a subscription 404 and maps the subscription otherwise', async () => {
    api().intercept({ path: '/api/v2/account/subscription', method: 'GET' }).reply(404, fail('Not found'));
    await expect(client.getSubscription()).resolves.toBeUndefined();
    api()
      .intercept({ path: '/api/v2/account/subscription', method: 'GET' })
      .reply(
        200,
        ok({
          subscription: {
            tier: 'Pro',
            maxConcurrentJobs: 4,
            quotas: [{ capability: 'image', remaining: 7 }],
          },
        }),
      );
    await expect(client.getSubscription()).resolves.toEqual({
      tier: 'Pro',
      maxConcurrentJobs: 4,
      quotas: [{ capability: 'image', remaining: 7 }],
    });
  });

  it('creates a job on the kind path with the idempotency key in the body', async () => {
    let sentBody: unknown;
    api()
      .intercept({
        path: '/api/v2/agents/jobs/create',
        method: 'POST',
        body: (body) => {
          sentBody = JSON.parse(body);
          return true;
        },
      })
      .reply(
        200,
        ok({
          jobId: 'j1',
          status: 'WaitingForAgent',
          chargeSource: 'Credit',
          creditCost: 3,
          quotaRemaining: null,
        }),
      );
    const creation = await client.createJob({
      endpoint: getJobKind('image'),
      body: { model: 'm', prompt: 'a red fox' },
      idempotencyKey: 'key-1',
    });
    expect(sentBody).toEqual({ model: 'm', prompt: 'a red fox', idempotencyKey: 'key-1' });
    expect(creation).toEqual({
      jobId: 'j1',
      status: 'WaitingForAgent',
      chargeSource: 'Credit',
      creditCost: 3,
      quotaRemaining: null,
    });
  });

  it('polls a job and builds the record', async () => {
    api()
      .intercept({ path: '/api/v2/jobs/a%2Fb', method: 'GET' })
      .reply(200, ok({ jobId: 'a/b', status: 'complete', resultImages: ['https://cdn.test/1.png'] }));
    await expect(client.getJob('a/b')).resolves.toMatchObject({
      phase: 'complete',
      resultUrls: ['https://cdn.test/1.png'],
    });
  });

  it('uploads: presign, then PUT to sasUrl without the API key', async () => {
    api()
      .intercept({
        path: '/api/v2/images/presign',
        method: 'POST',
        body: JSON.stringify({ fileName: 'a.png', contentType: 'image/png' }),
      })
      .reply(200, ok({ sasUrl: 'https://blob.test/c/a.png?sig=TOKEN', publicUrl: 'https://cdn.test/a.png' }));
    let putHeaders: Record<string, string> = {};
    let putBody: unknown;
    agent
      .get('https://blob.test')
      .intercept({
        path: '/c/a.png?sig=TOKEN',
        method: 'PUT',
        headers: (headers: Record<string, string>) => {
          putHeaders = headers;
          return true;
        },
        body: (body) => {
          putBody = body;
          return true;
        },
      })
      .reply(201, '');
    await expect(
      client.uploadImage({
        fileName: 'a.png',
        contentType: 'image/png',
        bytes: new TextEncoder().encode('PNGDATA'),
      }),
    ).resolves.toBe('https://cdn.test/a.png');
    expect(putHeaders['x-ms-blob-type']).toBe('BlockBlob');
    expect(putHeaders['content-type']).toBe('image/png');
    expect(Object.keys(putHeaders).map((h) => h.toLowerCase())).not.toContain('x-api-key');
    expect(Buffer.from(putBody as Uint8Array).toString()).toBe('PNGDATA');
  });
});

describe('downloads', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'client-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('streams to the destination with sha256, no key for a foreign host, no temp file left', async () => {
    let headers: Record<string, string> = {};
    agent
      .get('https://cdn.test')
      .intercept({
        path: '/r/1.png',
        method: 'GET',
        headers: (h: Record<string, string>) => {
          headers = h;
          return true;
        },
      })
      .reply(200, 'hello world');
    const dest = join(dir, 'nested', 'out.png');
    const result = await downloadToPath(client, 'https://cdn.test/r/1.png', dest);
    expect(result).toEqual({ bytes: 11, sha256: createHash('sha256').update('hello world').digest('hex') });
    expect(await readFile(dest, 'utf8')).toBe('hello world');
    expect(await readdir(join(dir, 'nested'))).toEqual(['out.png']);
    expect(Object.keys(headers)).not.toContain('x-api-key');
  });

  it('never sends the key, not even to a result on the API origin (#24.7)', async () => {
    api()
      .intercept({ path: '/files/1.png', method: 'GET', headers: recordHeaders('/files') })
      .reply(200, 'x');
    await downloadToPath(client, `${ORIGIN}/files/1.png`, join(dir, 'o.png'));
    expect(Object.keys(seen[0]?.headers ?? {}).map((h) => h.toLowerCase())).not.toContain('x-api-key');
  });

  it.each([
    ['application/json', '{"success":true,"data":{"apiKey":"legacy"}}'],
    ['text/html; charset=utf-8', '<!doctype html><title>Sign in</title>'],
    ['', '  {"success":false}'],
    ['image/png', '<html>not really a png</html>'],
    ['application/pdf', 'unknown bytes of some kind'],
  ])('refuses a result of type "%s" that is not media, writing nothing (#24.7)', async (type, body) => {
    agent
      .get('https://cdn.test')
      .intercept({ path: '/r/3.png', method: 'GET' })
      .reply(200, body, type === '' ? {} : { headers: { 'content-type': type } });
    const error = await downloadToPath(client, 'https://cdn.test/r/3.png', join(dir, 'r.png')).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect((error as Error).message).toMatch(/not a (known )?media file.*nothing was saved/);
    expect((error as Error).message).not.toContain('legacy');
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes media by its signature whatever the type says, and unknown bytes under a media type', async () => {
    const png = Buffer.concat([Buffer.from([0x89]), Buffer.from('PNG\r\n\x1a\n'), Buffer.alloc(40, 7)]);
    agent
      .get('https://cdn.test')
      .intercept({ path: '/r/4', method: 'GET' })
      .reply(200, png, { headers: { 'content-type': 'binary/octet-stream' } });
    agent
      .get('https://cdn.test')
      .intercept({ path: '/r/5.avif', method: 'GET' })
      .reply(200, 'some avif bytes', { headers: { 'content-type': 'image/avif' } });
    expect((await downloadToPath(client, 'https://cdn.test/r/4', join(dir, 'a.png'))).bytes).toBe(png.length);
    expect((await downloadToPath(client, 'https://cdn.test/r/5.avif', join(dir, 'b.avif'))).bytes).toBe(15);
  });

  it('continues a short write and records only the bytes on disk; a full disk leaves nothing (#24.3)', async () => {
    const body = Buffer.alloc(100_000, 0x42);
    for (const path of ['/r/6.png', '/r/7.png'])
      agent.get('https://cdn.test').intercept({ path, method: 'GET' }).reply(200, body);
    const onDisk = (capacity: number) => ({ openFile: fillingDisk(capacity) });
    const saved = await downloadToPath(
      client,
      'https://cdn.test/r/6.png',
      join(dir, 'whole.png'),
      undefined,
      onDisk(1_000_000),
    );
    expect(saved).toEqual({ bytes: body.length, sha256: createHash('sha256').update(body).digest('hex') });
    expect((await readFile(join(dir, 'whole.png'))).equals(body)).toBe(true);
    const error = await downloadToPath(
      client,
      'https://cdn.test/r/7.png',
      join(dir, 'cut.png'),
      undefined,
      onDisk(69_632),
    ).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('ENOSPC');
    expect(await readdir(dir)).toEqual(['whole.png']);
  });

  it('maps a 404 and leaves nothing behind', async () => {
    agent
      .get('https://cdn.test')
      .intercept({ path: '/gone.png?sig=SECRET', method: 'GET' })
      .reply(404, 'gone');
    const error = await downloadToPath(
      client,
      'https://cdn.test/gone.png?sig=SECRET',
      join(dir, 'g.png'),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toBe('GET cdn.test/gone.png failed: HTTP 404 Not found');
    expect(await readdir(dir)).toEqual([]);
  });
});

/**
 * Files that accept at most `capacity` bytes in all, as a disk with that much room does: the write
 * that reaches it is short (as write(2) is), the next one fails with ENOSPC. Each write is also cut
 * to 4 KB, so the downloader must continue short writes.
 */
function fillingDisk(capacity: number): OpenResultFile {
  let used = 0;
  return async (path) => {
    const handle = await open(path, 'w');
    return {
      async write(data, offset, length) {
        const room = Math.min(capacity - used, length, 4096);
        if (room <= 0)
          throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC' });
        const { bytesWritten } = await handle.write(data, offset, room);
        used += bytesWritten;
        return bytesWritten;
      },
      sync: () => handle.sync(),
      size: async () => (await handle.stat()).size,
      close: () => handle.close(),
    };
  };
}

describe('errors', () => {
  it("withholds the service's text while the legacy key is unknown (the balance read failed)", async () => {
    api().intercept({ path: '/api/v2/account/balance', method: 'GET' }).reply(403, fail('no balance here'));
    api()
      .intercept({ path: '/api/v2/jobs/x', method: 'GET' })
      .reply(404, fail('no job x for key legacy-unit-key-0123'));
    const error = (await client.getJob('x').catch((e: unknown) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.serviceMessage).toBeUndefined();
    expect(error.message).not.toContain('legacy-unit-key');
  });

  it('maps 402 with envelope fields, method, path and hint', async () => {
    answerFirstBalance();
    api()
      .intercept({ path: '/api/v2/agents/jobs/create', method: 'POST' })
      .reply(402, fail('Not enough credit', 'INSUFFICIENT_CREDIT'));
    const error = await client
      .createJob({ endpoint: getJobKind('image'), body: { model: 'm' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsufficientCreditsError);
    const e = error as InsufficientCreditsError;
    expect(e.message).toBe(
      'POST /agents/jobs/create failed: HTTP 402 Insufficient credits (errorCode INSUFFICIENT_CREDIT): "Not enough credit"',
    );
    expect(e).toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      method: 'POST',
      path: '/agents/jobs/create',
      status: 402,
      errorCode: 'INSUFFICIENT_CREDIT',
      serviceMessage: 'Not enough credit',
    });
    expect(e.hint).toContain('Top up before retrying');
    expect(clock.sleeps).toEqual([]);
  });

  it.each([
    [400, ServiceValidationError, 'SERVICE_VALIDATION'],
    [401, AuthenticationError, 'AUTHENTICATION'],
    [403, AuthenticationError, 'AUTHENTICATION'],
    [404, NotFoundError, 'NOT_FOUND'],
  ] as const)('maps HTTP %i without retrying', async (status, type, code) => {
    api().intercept({ path: '/api/v2/jobs/x', method: 'GET' }).reply(status, fail('nope'));
    const error = await client.getJob('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({ code, status });
    expect((error as Error).message).toContain(`GET /jobs/x failed: HTTP ${status}`);
    expect(clock.sleeps).toEqual([]);
  });

  it('scrubs the API key from a service message and never puts it in the error', async () => {
    answerFirstBalance();
    api()
      .intercept({ path: '/api/v2/models', method: 'GET' })
      .reply(401, fail(`Key ${KEY} is not valid`));
    const error = await client.listModels().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const text = [
      String(error),
      (error as Error).stack,
      JSON.stringify(error),
      (error as AuthenticationError).hint,
    ].join('\n');
    expect(text).not.toContain(KEY);
    expect((error as Error).message).toContain('[REDACTED]');
  });

  it('names the field of an unexpected job record', async () => {
    api()
      .intercept({ path: '/api/v2/jobs/abc', method: 'GET' })
      .reply(200, ok({ jobId: 'abc', status: 7 }));
    await expect(client.getJob('abc')).rejects.toThrow(
      'GET /jobs/abc: data.status: expected string, received number',
    );
  });

  it('reports a non-JSON success body and a success:false 200 as unexpected', async () => {
    answerFirstBalance();
    api().intercept({ path: '/api/v2/models', method: 'GET' }).reply(200, '<html>');
    await expect(client.listModels()).rejects.toBeInstanceOf(UnexpectedResponseError);
    api().intercept({ path: '/api/v2/models', method: 'GET' }).reply(200, fail('odd'));
    await expect(client.listModels()).rejects.toThrow('GET /models: HTTP 200 with success false: "odd"');
  });

  it('maps a 502 HTML page by status', async () => {
    api()
      .intercept({ path: '/api/v2/models', method: 'GET' })
      .reply(502, '<html>bad gateway</html>')
      .times(6);
    const error = await client.listModels().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerError);
    expect((error as Error).message).toBe('GET /models failed: HTTP 502 Server error');
  });
});

describe('retries', () => {
  it('waits Retry-After on 429, then succeeds', async () => {
    api()
      .intercept({ path: '/api/v2/models', method: 'GET' })
      .reply(429, fail('slow down'), { headers: { 'retry-after': '7' } });
    api().intercept({ path: '/api/v2/models', method: 'GET' }).reply(200, ok([]));
    await expect(client.listModels()).resolves.toEqual([]);
    expect(clock.sleeps).toEqual([7000]);
    expect(events).toContainEqual({
      type: 'retry',
      method: 'GET',
      path: '/models',
      attempt: 1,
      delayMs: 7000,
      reason: 'HTTP 429',
    });
  });

  it('gives up on 500 after maxRetries with jittered backoff', async () => {
    api().intercept({ path: '/api/v2/models', method: 'GET' }).reply(500, fail('boom')).times(6);
    await expect(client.listModels()).rejects.toBeInstanceOf(ServerError);
    expect(clock.sleeps).toEqual([250, 500, 1000, 2000, 4000]);
  });

  it('retries a reset GET and succeeds', async () => {
    api()
      .intercept({ path: '/api/v2/jobs/j', method: 'GET' })
      .replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    api()
      .intercept({ path: '/api/v2/jobs/j', method: 'GET' })
      .reply(200, ok({ jobId: 'j', status: 'Processing' }));
    await expect(client.getJob('j')).resolves.toMatchObject({ phase: 'running' });
    expect(clock.sleeps).toHaveLength(1);
  });

  it('retries a keyed image create after 500 and a reset', async () => {
    const path = '/api/v2/agents/jobs/create';
    api().intercept({ path, method: 'POST' }).reply(500, fail('boom'));
    api()
      .intercept({ path, method: 'POST' })
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    api()
      .intercept({ path, method: 'POST' })
      .reply(200, ok({ jobId: 'j9', status: 'WaitingForAgent' }));
    await expect(
      client.createJob({ endpoint: getJobKind('image'), body: { model: 'm' }, idempotencyKey: 'k' }),
    ).resolves.toMatchObject({ jobId: 'j9' });
    expect(clock.sleeps).toHaveLength(2);
  });

  it('does not re-send an unkeyed create after a 500', async () => {
    const path = '/api/v2/agents/jobs/create';
    api().intercept({ path, method: 'POST' }).reply(500, fail('boom'));
    api()
      .intercept({ path, method: 'POST' })
      .reply(200, ok({ jobId: 'twice', status: 'WaitingForAgent' }));
    await expect(
      client.createJob({ endpoint: getJobKind('image'), body: { model: 'm' } }),
    ).rejects.toBeInstanceOf(ServerError);
    expect(clock.sleeps).toEqual([]);
    expect(agent.pendingInterceptors()).toHaveLength(1);
  });

  it('does not re-send a video create after a reset, even with a key (no documented idempotency)', async () => {
    api()
      .intercept({ path: '/api/v2/render/video', method: 'POST' })
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    const error = await client
      .createJob({ endpoint: getJobKind('render-video'), body: { model: 'r' }, idempotencyKey: 'k' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ code: 'NETWORK', failure: 'reset' });
    expect((error as Error).message).toContain('POST /render/video failed');
    expect(clock.sleeps).toEqual([]);
  });

  it('re-sends an unkeyed create after ECONNREFUSED and AGENT_QUEUE_FULL', async () => {
    const path = '/api/v2/voiceover-videos/create';
    api()
      .intercept({ path, method: 'POST' })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    api().intercept({ path, method: 'POST' }).reply(503, fail('queue full', 'AGENT_QUEUE_FULL'));
    api()
      .intercept({ path, method: 'POST' })
      .reply(200, ok({ jobId: 'v1' }));
    await expect(
      client.createJob({ endpoint: getJobKind('voiceover-video'), body: { model: 'v' } }),
    ).resolves.toEqual({
      jobId: 'v1',
      status: '',
    });
    expect(clock.sleeps).toEqual([250, 60_000]);
  });

  it('marks a refusal that follows an ambiguous send of the same keyed create', async () => {
    const path = '/api/v2/agents/jobs/create';
    api()
      .intercept({ path, method: 'POST' })
      .replyWithError(Object.assign(new Error('reset'), { code: 'ECONNRESET' }));
    api()
      .intercept({ path, method: 'POST' })
      .reply(429, fail('slow down'), { headers: { 'retry-after': '3600' } });
    const error = await client
      .createJob({ endpoint: getJobKind('image'), body: { model: 'm' }, idempotencyKey: 'k' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ earlierSendMayHaveActed: true });

    api()
      .intercept({ path, method: 'POST' })
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    api().intercept({ path, method: 'POST' }).reply(402, fail('no credits'));
    const refused = await client
      .createJob({ endpoint: getJobKind('image'), body: { model: 'm' }, idempotencyKey: 'k' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InsufficientCreditsError);
    expect(refused).toMatchObject({ earlierSendMayHaveActed: false });
  });

  it('never re-sends a keyed create after its key window when an earlier send may have made the job', async () => {
    const path = '/api/v2/agents/jobs/create';
    // The first send may have made the job; then the service asks to wait 100 s, three times.
    api().intercept({ path, method: 'POST' }).reply(500, fail('boom'));
    api()
      .intercept({ path, method: 'POST' })
      .reply(429, fail('slow down'), { headers: { 'retry-after': '100' } })
      .times(3);
    api()
      .intercept({ path, method: 'POST' })
      .reply(200, ok({ jobId: 'second-paid-job', status: 'WaitingForAgent' }));
    const error = await client
      .createJob({ endpoint: getJobKind('image'), body: { model: 'm' }, idempotencyKey: 'k' })
      .catch((e: unknown) => e);
    // 250 ms + 100 s + 100 s: a fourth wait would send at ~300 s, past the ~270 s window.
    expect(clock.sleeps).toEqual([250, 100_000, 100_000]);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ earlierSendMayHaveActed: true });
    expect(agent.pendingInterceptors()).toHaveLength(1);
  });

  it('keeps waiting out refusals past the key window when no send may have made the job', async () => {
    const path = '/api/v2/agents/jobs/create';
    api()
      .intercept({ path, method: 'POST' })
      .reply(429, fail('slow down'), { headers: { 'retry-after': '100' } })
      .times(3);
    api()
      .intercept({ path, method: 'POST' })
      .reply(200, ok({ jobId: 'only-job', status: 'WaitingForAgent' }));
    await expect(
      client.createJob({ endpoint: getJobKind('image'), body: { model: 'm' }, idempotencyKey: 'k2' }),
    ).resolves.toMatchObject({ jobId: 'only-job' });
    expect(clock.sleeps).toEqual([100_000, 100_000, 100_000]);
  });

  it('gives up with RateLimitedError when the queue stays full', async () => {
    api()
      .intercept({ path: '/api/v2/agents/jobs/create', method: 'POST' })
      .reply(200, fail('queue full', 'AGENT_QUEUE_FULL'))
      .times(6);
    const error = await client
      .createJob({ endpoint: getJobKind('image'), body: { model: 'm' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', errorCode: 'AGENT_QUEUE_FULL' });
    expect(clock.sleeps).toEqual([60_000, 60_000, 60_000, 60_000, 60_000]);
  });

  it('turns a request timeout into a NetworkError and stops on the caller abort', async () => {
    const timed = createServiceClient({
      baseUrl: BASE,
      apiKey: KEY,
      dispatcher: agent,
      clock,
      requestTimeoutMs: 20,
      retry: { maxRetries: 0 },
    });
    api().intercept({ path: '/api/v2/models', method: 'GET' }).reply(200, ok([])).delay(500);
    const error = await timed.listModels().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error).toMatchObject({ failure: 'timeout' });
    expect((error as Error).message).toContain('GET /models failed: no answer in time');

    const controller = new AbortController();
    controller.abort(new Error('user pressed Ctrl-C'));
    await expect(client.listModels(undefined, { signal: controller.signal })).rejects.toThrow(
      'user pressed Ctrl-C',
    );
    await timed.close();
  });
});
