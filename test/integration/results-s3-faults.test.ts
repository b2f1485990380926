import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RunnerError } from '../../src/errors.js';
import type { S3ResultsStore, S3StoreOptions } from '../../src/results/backends/s3/s3-store.js';
import { openS3ResultsStore } from '../../src/results/s3-results.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';

/**
 * The S3 results store when the store misbehaves or refuses: faults through a loopback proxy in front
 * of a real S3 server (s3rver), refusals from the server itself where it makes them (no such bucket,
 * a wrong secret). Every error is a RESULTS_UNREACHABLE RunnerError naming the bucket and what to fix, and
 * never shows a credential.
 */
const s3 = useS3Server();
const MIB = 1024 * 1024;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const SECRET = 'not-the-real-secret-0123456789';

async function* chunks(data: Buffer): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += 64 * 1024) {
    // One chunk per turn of the event loop, as a download delivers them.
    await new Promise((resolve) => setImmediate(resolve));
    yield data.subarray(at, at + 64 * 1024);
  }
}

let awsDir: string;
const opened: S3ResultsStore[] = [];
const proxies: FaultProxy[] = [];
beforeAll(() => {
  awsDir = mkdtempSync(join(tmpdir(), 'runner-aws-'));
});
afterAll(() => rmSync(awsDir, { recursive: true, force: true }));
afterEach(async () => {
  for (const store of opened.splice(0)) store.close();
  for (const proxy of proxies.splice(0)) await proxy.close();
  vi.unstubAllEnvs();
});

async function openStore(
  options: S3StoreOptions & {
    endpoint?: string;
    output?: string;
    env?: Record<string, string | undefined>;
  } = {},
): Promise<S3ResultsStore> {
  const env: Record<string, string | undefined> = {
    ...s3().env,
    AWS_ENDPOINT_URL_S3: options.endpoint ?? s3().endpoint,
    AWS_CONFIG_FILE: join(awsDir, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(awsDir, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    ...options.env,
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const store = await openS3ResultsStore(options.output ?? `s3://${s3().bucket}/faults`, {
    partSize: 5 * MIB,
    ...options,
  });
  opened.push(store);
  return store;
}

async function proxyWith(decide: (method: string, url: string, index: number) => Fault): Promise<FaultProxy> {
  const proxy = await startFaultProxy(s3().endpoint, (request, index) =>
    decide(request.method ?? '', request.url ?? '', index),
  );
  proxies.push(proxy);
  return proxy;
}

/** The RunnerError a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<RunnerError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(RunnerError);
  const runnerError = error as RunnerError;
  expect(runnerError.code).toBe('RESULTS_UNREACHABLE');
  expect(`${runnerError.message} ${runnerError.hint ?? ''}`).not.toContain(SECRET);
  return runnerError;
}

async function readAll(body: AsyncIterable<Uint8Array> | undefined): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of body ?? []) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

describe('preflight refuses a store that cannot be written, saying why and what to fix', () => {
  it('a bucket that does not exist', async () => {
    const store = await openStore({ output: 's3://no-such-bucket/nightly' });
    const error = await refusal(store.preflight());
    expect(error.message).toContain('the bucket no-such-bucket (s3://no-such-bucket/nightly)');
    expect(error.message).toContain('the bucket does not exist');
    expect(error.hint).toContain('Create the bucket');
  });

  it('an access key the store does not know, the secret never shown', async () => {
    // s3rver checks the access key id, not the v4 signature: a wrong secret alone would pass here.
    const store = await openStore({
      env: { AWS_ACCESS_KEY_ID: 'AKIAUNKNOWNKEY000000', AWS_SECRET_ACCESS_KEY: SECRET },
    });
    const error = await refusal(store.preflight());
    expect(error.message).toContain('the credential is not accepted');
    expect(error.hint).toContain('AWS_ACCESS_KEY_ID');
  });

  it('no credentials anywhere in the default chain', async () => {
    const store = await openStore({
      env: { AWS_ACCESS_KEY_ID: undefined, AWS_SECRET_ACCESS_KEY: undefined },
    });
    const error = await refusal(store.preflight());
    expect(error.message).toContain('no AWS credentials were found');
  });

  it('access denied', async () => {
    const proxy = await proxyWith(() => ({ status: 403, code: 'AccessDenied', message: 'Access Denied' }));
    const error = await refusal((await openStore({ endpoint: proxy.endpoint })).preflight());
    expect(error.message).toContain('access denied');
    expect(error.hint).toContain('s3:PutObject');
  });

  it("a region mismatch, naming the bucket's region", async () => {
    const proxy = await proxyWith(() => ({
      status: 301,
      code: 'PermanentRedirect',
      headers: { 'x-amz-bucket-region': 'eu-west-3' },
    }));
    const error = await refusal((await openStore({ endpoint: proxy.endpoint })).preflight());
    expect(error.message).toContain('the bucket is in another region (eu-west-3)');
    expect(error.hint).toContain('AWS_REGION=eu-west-3');
  });

  it('an expired credential', async () => {
    const proxy = await proxyWith(() => ({
      status: 400,
      code: 'ExpiredToken',
      message: 'The provided token has expired.',
    }));
    const error = await refusal(
      (await openStore({ endpoint: proxy.endpoint, env: { AWS_SESSION_TOKEN: SECRET } })).preflight(),
    );
    expect(error.message).toContain('the credential has expired');
  });

  it('an endpoint that does not answer', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const store = await openStore({ endpoint: `http://127.0.0.1:${port}`, maxAttempts: 1 });
    const error = await refusal(store.preflight());
    expect(error.message).toContain('the endpoint does not answer');
    expect(error.hint).toContain('AWS_ENDPOINT_URL_S3');
  });
});

describe('faults while results stream in', () => {
  it('a 500 and a reset connection are retried: the result is stored once, as sent', async () => {
    let faults = 0;
    const proxy = await proxyWith((method, url) => {
      if (method !== 'PUT' || !url.includes('partNumber=2')) return 'pass';
      faults += 1;
      if (faults === 1) return { status: 500, code: 'InternalError' };
      if (faults === 2) return 'reset';
      return 'pass';
    });
    const store = await openStore({ endpoint: proxy.endpoint });
    const data = randomBytes(11 * MIB);
    expect(await store.put('retried.mp4', chunks(data))).toEqual({
      bytes: data.length,
      sha256: sha256(data),
    });
    expect(faults).toBe(3);
    expect((await s3().storedBytes('faults/retried.mp4'))?.equals(data)).toBe(true);
    expect((await readAll(await store.get('retried.mp4'))).equals(data)).toBe(true);
    expect(await s3().unfinishedUploads()).toEqual([]);
  });

  it('a part the store keeps failing aborts the upload: nothing stored, nothing unfinished', async () => {
    const proxy = await proxyWith((method, url) =>
      method === 'PUT' && url.includes('partNumber=2') ? { status: 503, code: 'SlowDown' } : 'pass',
    );
    const store = await openStore({ endpoint: proxy.endpoint, maxAttempts: 2 });
    const error = await refusal(store.put('failing.mp4', chunks(randomBytes(11 * MIB))));
    expect(error.message).toContain('store failing.mp4 in the bucket results');
    expect(error.message).toContain('HTTP 503');
    expect(await store.stat('failing.mp4')).toBeUndefined();
    expect(await s3().unfinishedUploads()).toEqual([]);
  });

  it('a store slower than the request timeout is reported as not answering; a slow one within it is waited for', async () => {
    const slow = await proxyWith((method) => (method === 'PUT' ? { delayMs: 1_500 } : 'pass'));
    const impatient = await openStore({ endpoint: slow.endpoint, requestTimeoutMs: 300, maxAttempts: 1 });
    const error = await refusal(impatient.put('slow.png', chunks(randomBytes(1000))));
    expect(error.message).toContain('the endpoint does not answer');
    const patient = await openStore({ endpoint: slow.endpoint, requestTimeoutMs: 10_000 });
    const data = randomBytes(1000);
    expect(await patient.put('slow.png', chunks(data))).toEqual({ bytes: 1000, sha256: sha256(data) });
    expect((await s3().storedBytes('faults/slow.png'))?.equals(data)).toBe(true);
  });
});

describe("the store's proof that it kept the bytes sent", () => {
  /** A store answering each put (a whole object or a part) with headers of `answer`'s making. */
  const answering = (
    answer: (sha256: string, headers: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<FaultProxy> =>
    proxyWith((method, url) =>
      method === 'PUT' && !url.includes('.runner-probe-')
        ? { answer: ({ sha256: measured }, headers) => answer(measured, headers) as typeof headers }
        : 'pass',
    );
  const wrong = (sha256: string) => createHash('sha256').update(sha256).digest('base64');

  /** A store that answers each put and part with a checksum other than the one it measured. */
  const echoingWrongChecksum = (): Promise<FaultProxy> =>
    answering((measured, headers) => ({ ...headers, 'x-amz-checksum-sha256': wrong(measured) }));

  it('a checksum echoed other than sent refuses the put: nothing stored under the key', async () => {
    const proxy = await echoingWrongChecksum();
    const store = await openStore({ endpoint: proxy.endpoint });
    const error = await refusal(store.put('echoed.png', chunks(randomBytes(3 * MIB))));
    expect(error.message).toContain('the object faults/echoed.png was not stored as sent (its SHA-256');
    expect(await store.stat('echoed.png')).toBeUndefined();
  });

  it("a part's checksum echoed other than sent refuses the upload: nothing stored, nothing unfinished", async () => {
    const proxy = await echoingWrongChecksum();
    const store = await openStore({ endpoint: proxy.endpoint });
    const error = await refusal(store.put('echoed.mp4', chunks(randomBytes(11 * MIB))));
    expect(error.message).toMatch(/part \d of faults\/echoed\.mp4 was not stored as sent/);
    expect(await store.stat('echoed.mp4')).toBeUndefined();
    expect(await s3().unfinishedUploads()).toEqual([]);
  });

  /**
   * A store that answers CompleteMultipartUpload with a composite checksum as AWS S3 does (s3rver
   * answers none), of the parts' SHA-256s as it measured them, joined in the order `order` gives.
   */
  const answeringComposite = (order: (numbers: number[]) => number[]): Promise<FaultProxy> => {
    const parts = new Map<number, string>();
    return proxyWith((method, url) => {
      const query = new URL(url, 'http://proxy').searchParams;
      if (method === 'PUT' && query.has('partNumber')) {
        return {
          answer: ({ sha256: measured }, headers) => {
            parts.set(Number(query.get('partNumber')), measured);
            return headers;
          },
        };
      }
      if (method !== 'POST' || !query.has('uploadId')) return 'pass';
      return {
        answer: (_, headers) => headers,
        body: (text) => {
          const numbers = order([...parts.keys()].sort((a, b) => a - b));
          const joined = createHash('sha256');
          for (const number of numbers) joined.update(Buffer.from(parts.get(number) ?? '', 'base64'));
          const composite = `${joined.digest('base64')}-${numbers.length}`;
          return text.replace(
            '</CompleteMultipartUploadResult>',
            `<ChecksumSHA256>${composite}</ChecksumSHA256><ChecksumType>COMPOSITE</ChecksumType></CompleteMultipartUploadResult>`,
          );
        },
      };
    });
  };

  it("a multipart upload's composite checksum as its parts make it is taken", async () => {
    const proxy = await answeringComposite((numbers) => numbers);
    const store = await openStore({ endpoint: proxy.endpoint });
    const data = randomBytes(11 * MIB);
    expect(await store.put('composite.mp4', chunks(data))).toEqual({
      bytes: data.length,
      sha256: sha256(data),
    });
    expect((await s3().storedBytes('faults/composite.mp4'))?.equals(data)).toBe(true);
  });

  it('a composite checksum other than the parts make refuses the upload: the object deleted, nothing unfinished', async () => {
    // A store that joined the parts in another order than they were sent.
    const proxy = await answeringComposite((numbers) => [...numbers].reverse());
    const store = await openStore({ endpoint: proxy.endpoint });
    const error = await refusal(store.put('joined.mp4', chunks(randomBytes(11 * MIB))));
    expect(error.message).toContain(
      'the object faults/joined.mp4 was not stored as sent (its composite SHA-256',
    );
    expect(await store.stat('joined.mp4')).toBeUndefined();
    expect(await s3().unfinishedUploads()).toEqual([]);
  });

  it('an ETag that is not the MD5 of the bytes sent, and no checksum echoed, refuses the put', async () => {
    const proxy = await answering((_, headers) => ({ ...headers, etag: `"${'0'.repeat(32)}"` }));
    const store = await openStore({ endpoint: proxy.endpoint });
    const error = await refusal(store.put('etag.png', chunks(randomBytes(1000))));
    expect(error.message).toContain(
      `the object faults/etag.png was not stored as sent (ETag ${'0'.repeat(32)}`,
    );
    expect(await store.stat('etag.png')).toBeUndefined();
  });

  it('a store that proves nothing (no checksum echoed, an ETag that is no MD5) has the object read back', async () => {
    const proxy = await answering((_, headers) => ({ ...headers, etag: '"kms-opaque-etag"' }));
    const store = await openStore({ endpoint: proxy.endpoint });
    for (const [key, data] of [
      ['opaque.png', randomBytes(1000)],
      ['opaque.mp4', randomBytes(11 * MIB)],
    ] as const) {
      expect(await store.put(key, chunks(data))).toEqual({ bytes: data.length, sha256: sha256(data) });
      expect((await s3().storedBytes(`faults/${key}`))?.equals(data)).toBe(true);
      expect(proxy.seen.filter((seen) => seen.startsWith(`GET /${s3().bucket}/faults/${key}`))).toHaveLength(
        1,
      );
    }
  });
});
