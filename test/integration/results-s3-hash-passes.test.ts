// First: the SDK takes `createHash` when it loads (see ../count-hashes.ts).
import { bytesHashed, resetHashCounts } from '../count-hashes.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openS3ResultsStore } from '../../src/results/s3-results.js';
import { startFaultProxy, type FaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';

/**
 * How many times a result's bytes are hashed on their way into the bucket (#30), counted by wrapping
 * `crypto.createHash` in this process (the store, the SDK), leaving out the hashes s3rver and the test
 * proxy make of what they receive. No mock: the store talks to s3rver.
 *
 * A store that echoes the `x-amz-checksum-sha256` it was sent, as AWS S3, R2 and MinIO do (here the
 * proxy, measuring what it passes on), has proved the bytes: no MD5 at all. s3rver echoes nothing: its
 * ETag, the MD5 of what it kept, is the proof, and the client computes the MD5 once, after the answer.
 * Each byte is hashed by SHA-256 once (the recorded checksum), and a multipart upload's once more per
 * part (each part's checksum: the whole body's SHA-256 cannot be made of the parts').
 *
 * Measured before the store sent its SHA-256 as the proof (an MD5 of every byte as it streamed, sent
 * as Content-MD5): MD5 1.00× the body whether the store echoed or not, SHA-256 1.00×. Before the
 * multipart upload was done by hand (lib-storage): SHA-256 3.0×, MD5 1.58×.
 */
const s3 = useS3Server();
const MIB = 1024 * 1024;
let awsDir: string;
const proxies: FaultProxy[] = [];
beforeAll(() => {
  awsDir = mkdtempSync(join(tmpdir(), 'runner-aws-'));
});
afterEach(async () => {
  for (const proxy of proxies.splice(0)) await proxy.close();
  vi.unstubAllEnvs();
});
afterAll(() => {
  rmSync(awsDir, { recursive: true, force: true });
});

async function* chunks(data: Buffer): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += 64 * 1024) {
    await new Promise((resolve) => setImmediate(resolve));
    yield data.subarray(at, at + 64 * 1024);
  }
}

/** A store that echoes the checksum it measured, as AWS S3 does, in front of s3rver. */
async function echoingStore(): Promise<string> {
  const proxy = await startFaultProxy(s3().endpoint, (request) =>
    request.method === 'PUT' && request.headers['x-amz-checksum-sha256'] !== undefined
      ? { answer: ({ sha256 }, headers) => ({ ...headers, 'x-amz-checksum-sha256': sha256 }) }
      : 'pass',
  );
  proxies.push(proxy);
  return proxy.endpoint;
}

/** Puts `data` through the store at `endpoint`; the bytes hashed per algorithm, as multiples of its size. */
async function hashesOfPut(endpoint: string, data: Buffer): Promise<{ sha256: number; md5: number }> {
  const env = {
    ...s3().env,
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_CONFIG_FILE: join(awsDir, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(awsDir, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const store = await openS3ResultsStore(`s3://${s3().bucket}/hashes`, { partSize: 5 * MIB });
  try {
    resetHashCounts();
    const stored = await store.put('clips/intro.mp4', chunks(data), { contentType: 'video/mp4' });
    const counts = { sha256: bytesHashed('sha256'), md5: bytesHashed('md5') };
    expect(stored.bytes).toBe(data.length);
    expect((await s3().storedBytes('hashes/clips/intro.mp4'))?.equals(data)).toBe(true);
    // Besides the body, only the requests' own small texts (canonical requests, the parts' list):
    // rounded to hundredths of the body, they are nothing.
    return {
      sha256: Math.round((counts.sha256 / data.length) * 100) / 100,
      md5: Math.round((counts.md5 / data.length) * 100) / 100,
    };
  } finally {
    store.close();
  }
}

describe('the hashes of a result on its way into the bucket (#30)', () => {
  const image = randomBytes(3 * MIB + 4321);
  const video = randomBytes(12 * MIB + 12345);

  it('one put to a store that echoes the checksum: SHA-256 once, no MD5', async () => {
    expect(await hashesOfPut(await echoingStore(), image)).toEqual({ sha256: 1, md5: 0 });
  });

  it('a multipart upload to a store that echoes each part checksum: SHA-256 twice (the whole, each part), no MD5', async () => {
    expect(await hashesOfPut(await echoingStore(), video)).toEqual({ sha256: 2, md5: 0 });
  });

  it('one put to a store that echoes nothing (s3rver): SHA-256 once, MD5 once for its ETag', async () => {
    expect(await hashesOfPut(s3().endpoint, image)).toEqual({ sha256: 1, md5: 1 });
  });

  it('a multipart upload to a store that echoes nothing: SHA-256 twice, MD5 once (each part for its ETag)', async () => {
    expect(await hashesOfPut(s3().endpoint, video)).toEqual({ sha256: 2, md5: 1 });
  });

  it('each put and part is signed with the SHA-256 of its own body as the payload hash, by one store in a row', async () => {
    // What the signature covers: x-amz-content-sha256 against the SHA-256 of the body the proxy passed
    // on. The SDK's middleware is resolved once per command class (cacheMiddleware): a payload hash
    // kept from the first request would sign every later body with the first one's.
    const signed: { header: string | undefined; body: string }[] = [];
    const proxy = await startFaultProxy(s3().endpoint, (request) =>
      request.method === 'PUT' && request.headers['x-amz-checksum-sha256'] !== undefined
        ? {
            answer: ({ headers, sha256 }, answer) => {
              const header = headers['x-amz-content-sha256'];
              signed.push({ header: typeof header === 'string' ? header : undefined, body: sha256 });
              return answer;
            },
          }
        : 'pass',
    );
    proxies.push(proxy);
    for (const [name, value] of Object.entries({
      ...s3().env,
      AWS_ENDPOINT_URL_S3: proxy.endpoint,
      AWS_CONFIG_FILE: join(awsDir, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(awsDir, 'credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    }))
      vi.stubEnv(name, value);
    const store = await openS3ResultsStore(`s3://${s3().bucket}/signed`, { partSize: 5 * MIB });
    try {
      await store.preflight();
      await store.put('a.png', chunks(randomBytes(1000)), {});
      await store.put('b.png', chunks(randomBytes(2000)), {});
      await store.put('c.mp4', chunks(video), {});
    } finally {
      store.close();
    }
    // The preflight's probe, two images, three parts.
    expect(signed).toHaveLength(6);
    for (const { header, body } of signed) expect(header).toBe(Buffer.from(body, 'base64').toString('hex'));
  });
});
