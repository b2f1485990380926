import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { S3ResultsStore, S3StoreOptions } from '../../src/results/backends/s3/s3-store.js';
import { openS3ResultsStore } from '../../src/results/s3-results.js';
import { startFaultProxy, type Fault, type FaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';

const s3 = useS3Server();
const MIB = 1024 * 1024;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** `data` as a download gives it: in chunks of 64 KiB, optionally failing after `failAfter` bytes. */
async function* chunks(data: Buffer, failAfter?: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += 64 * 1024) {
    if (failAfter !== undefined && at >= failAfter) throw new Error('the download broke off');
    // One chunk per turn of the event loop, as a download delivers them.
    await new Promise((resolve) => setImmediate(resolve));
    yield data.subarray(at, at + 64 * 1024);
  }
}

async function readAll(body: AsyncIterable<Uint8Array> | undefined): Promise<Buffer | undefined> {
  if (body === undefined) return undefined;
  const parts: Buffer[] = [];
  for await (const chunk of body) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
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

/** A store over `endpoint` (the S3 server, or a proxy before it) with s3rver's credentials from the environment. */
async function openStore(
  options: S3StoreOptions & { endpoint?: string; output?: string; env?: Record<string, string> } = {},
): Promise<S3ResultsStore> {
  const env = {
    ...s3().env,
    AWS_ENDPOINT_URL_S3: options.endpoint ?? s3().endpoint,
    // Nothing of this machine's own AWS set-up is read.
    AWS_CONFIG_FILE: join(awsDir, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(awsDir, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    ...options.env,
  };
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  const store = await openS3ResultsStore(options.output ?? `s3://${s3().bucket}/nightly/run-1`, {
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

/** The object keys under a prefix of the bucket, through the S3 API. */
async function objectsUnder(Prefix: string): Promise<string[]> {
  const { ListObjectsV2Command, S3Client } = await import('@aws-sdk/client-s3');
  const raw = new S3Client({ forcePathStyle: true, endpoint: s3().endpoint, region: 'us-east-1' });
  const { Contents } = await raw.send(new ListObjectsV2Command({ Bucket: s3().bucket, Prefix }));
  raw.destroy();
  return (Contents ?? []).map((object) => object.Key ?? '');
}

/** The stored bytes, read back through the S3 API and from s3rver's folder: both must be `expected`. */
async function expectStored(store: S3ResultsStore, key: string, expected: Buffer): Promise<void> {
  const viaApi = await readAll(await store.get(key));
  const onDisk = await s3().storedBytes(`nightly/run-1/${key}`);
  expect(viaApi?.equals(expected)).toBe(true);
  expect(onDisk?.equals(expected)).toBe(true);
  expect(await store.stat(key)).toEqual({ bytes: expected.length, sha256: sha256(expected) });
}

describe('the S3 results store against a real S3 server (s3rver)', () => {
  it('preflight writes and deletes a probe object, leaving nothing', async () => {
    const proxy = await proxyWith(() => 'pass');
    const store = await openStore({ endpoint: proxy.endpoint, output: `s3://${s3().bucket}/preflight-only` });
    await store.preflight();
    const [put, del] = proxy.seen;
    expect(put).toMatch(/^PUT \/results\/preflight-only\/\.runner-probe-[0-9a-f]+/);
    expect(del).toBe(
      put!
        .replace(/^PUT/, 'DELETE')
        .replace(/\?.*$/, (query) => (query.includes('x-id=PutObject') ? '?x-id=DeleteObject' : query)),
    );
    expect(await objectsUnder('preflight-only/')).toEqual([]);
  });

  it('streams a small result as one put: the stored bytes are the sent bytes, not aws-chunked framing', async () => {
    const store = await openStore();
    const data = randomBytes(300 * 1024);
    const stored = await store.put('hero.png', chunks(data), { contentType: 'image/png' });
    expect(stored).toEqual({ bytes: data.length, sha256: sha256(data) });
    await expectStored(store, 'hero.png', data);
  });

  it('stores an image without waiting for the listing of unfinished uploads of its key', async () => {
    let putArrived!: () => void;
    const put = new Promise<void>((resolve) => (putArrived = resolve));
    let listingHeld = false;
    let putWhileListingHeld = false;
    const proxy = await proxyWith((method, url) => {
      if (method === 'PUT') {
        putWhileListingHeld = listingHeld;
        putArrived();
      }
      if (method !== 'GET' || !url.includes('uploads')) return 'pass';
      // Held until the image's PUT arrives; a store that waits for the answer first sends it after 20 s.
      listingHeld = true;
      const bound = new Promise((resolve) => setTimeout(resolve, 20_000).unref());
      return { until: Promise.race([put, bound]).finally(() => (listingHeld = false)) };
    });
    const store = await openStore({ endpoint: proxy.endpoint });
    const data = randomBytes(2 * MIB + 7);
    await store.put('no-wait.png', chunks(data), { contentType: 'image/png' });
    expect(putWhileListingHeld).toBe(true);
    await expectStored(store, 'no-wait.png', data);
  });

  it("lists the prefix's unfinished uploads once, not per image, and aborts those of each key it puts", async () => {
    const proxy = await proxyWith(() => 'pass');
    const store = await openStore({ endpoint: proxy.endpoint });
    const { S3Client } = await import('@aws-sdk/client-s3');
    const raw = new S3Client({ forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' });
    // Uploads a killed process left, of two of the keys put below and of one not put.
    const left = new Map<string, string | undefined>();
    for (const name of ['one.png', 'two.png', 'other.mp4']) {
      const Key = `nightly/run-1/${name}`;
      left.set(
        Key,
        (await raw.send(new CreateMultipartUploadCommand({ Bucket: s3().bucket, Key }))).UploadId,
      );
    }
    const images = ['one.png', 'two.png', 'three.png', 'four.png'].map(
      (name) => [name, randomBytes(4096)] as const,
    );
    await Promise.all(images.slice(0, 2).map(([name, data]) => store.put(name, chunks(data))));
    for (const [name, data] of images.slice(2)) await store.put(name, chunks(data));
    expect(proxy.seen.filter((seen) => seen.startsWith('GET') && seen.includes('uploads'))).toHaveLength(1);
    expect(await s3().unfinishedUploads()).toEqual(['nightly/run-1/other.mp4']);
    for (const [name, data] of images) await expectStored(store, name, data);
    const Key = 'nightly/run-1/other.mp4';
    await raw.send(new AbortMultipartUploadCommand({ Bucket: s3().bucket, Key, UploadId: left.get(Key) }));
    raw.destroy();
  });

  it('streams a large result as a multipart upload (3 parts), the SHA-256 kept as metadata, no upload left', async () => {
    const store = await openStore();
    const data = randomBytes(12 * MIB + 12345);
    const stored = await store.put('clips/intro.mp4', chunks(data), { contentType: 'video/mp4' });
    expect(stored).toEqual({ bytes: data.length, sha256: sha256(data) });
    await expectStored(store, 'clips/intro.mp4', data);
    expect(await s3().unfinishedUploads()).toEqual([]);
  });

  it('a body that fails mid-upload leaves nothing under the key and no unfinished upload, and throws its own error', async () => {
    const store = await openStore();
    const data = randomBytes(16 * MIB);
    await expect(store.put('broken.mp4', chunks(data, 11 * MIB))).rejects.toThrow('the download broke off');
    expect(await store.stat('broken.mp4')).toBeUndefined();
    expect(await s3().storedBytes('nightly/run-1/broken.mp4')).toBeUndefined();
    expect(await s3().unfinishedUploads()).toEqual([]);
  });

  it('an aborted put leaves nothing under the key and no unfinished upload', async () => {
    const store = await openStore();
    const data = randomBytes(16 * MIB);
    const controller = new AbortController();
    async function* abortingMidway() {
      for await (const chunk of chunks(data)) {
        yield chunk;
        // Past the first part: the multipart upload has begun.
        if (chunk.byteOffset >= 7 * MIB) controller.abort(new Error('interrupted by the test'));
      }
    }
    await expect(store.put('aborted.mp4', abortingMidway(), { signal: controller.signal })).rejects.toThrow(
      'interrupted by the test',
    );
    expect(await store.stat('aborted.mp4')).toBeUndefined();
    expect(await s3().unfinishedUploads()).toEqual([]);
  });

  it('moves a result under .superseded/attempt-N/ with its bytes and checksum; moving nothing throws', async () => {
    const store = await openStore();
    const data = randomBytes(40 * 1024);
    await store.put('portrait.png', chunks(data));
    await store.move('portrait.png', '.superseded/attempt-1/portrait.png');
    expect(await store.stat('portrait.png')).toBeUndefined();
    await expectStored(store, '.superseded/attempt-1/portrait.png', data);
    await expect(store.move('portrait.png', '.superseded/attempt-2/portrait.png')).rejects.toMatchObject({
      code: 'RESULTS_UNREACHABLE',
    });
    await expectStored(store, '.superseded/attempt-1/portrait.png', data);
  });

  it('writes small whole objects (the report, results.json), replacing them', async () => {
    const store = await openStore();
    await store.writeWhole('report.html', '<html>one</html>', 'text/html');
    await store.writeWhole('report.html', '<html>two</html>', 'text/html');
    await expectStored(store, 'report.html', Buffer.from('<html>two</html>'));
    expect(await store.get('missing.json')).toBeUndefined();
  });

  it('lists the objects directly in a key folder of its prefix: not deeper, not another prefix', async () => {
    const store = await openStore({ output: `s3://${s3().bucket}/listed/run-1` });
    const other = await openStore({ output: `s3://${s3().bucket}/listed/run-2` });
    expect(await store.list('thumbnails')).toEqual([]);
    await store.writeWhole('thumbnails/a.webp', 'a', 'image/webp');
    await store.writeWhole('thumbnails/b.webp', 'b', 'image/webp');
    await store.writeWhole('thumbnails/deeper/c.webp', 'c', 'image/webp');
    await store.writeWhole('thumbnails.webp', 'not in the folder', 'image/webp');
    await other.writeWhole('thumbnails/d.webp', 'd', 'image/webp');
    expect((await store.list('thumbnails')).sort()).toEqual(['a.webp', 'b.webp']);
  });

  it('stat measures an object stored without the SHA-256 metadata (a process killed before it wrote it)', async () => {
    const store = await openStore();
    const data = randomBytes(1000);
    const { PutObjectCommand, S3Client } = await import('@aws-sdk/client-s3');
    const raw = new S3Client({ forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' });
    await raw.send(new PutObjectCommand({ Bucket: s3().bucket, Key: 'nightly/run-1/bare.png', Body: data }));
    raw.destroy();
    expect(await store.stat('bare.png')).toEqual({ bytes: 1000, sha256: sha256(data) });
  });

  it('sweepUnfinished aborts the stale unfinished uploads under the prefix and leaves recent ones and other prefixes', async () => {
    const store = await openStore({
      output: `s3://${s3().bucket}/sweep`,
      staleUploadMs: 60_000,
      now: () => Date.now() + 120_000,
    });
    const { S3Client } = await import('@aws-sdk/client-s3');
    const raw = new S3Client({ forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED' });
    const begin = async (Key: string) => {
      const { UploadId } = await raw.send(new CreateMultipartUploadCommand({ Bucket: s3().bucket, Key }));
      await raw.send(
        new UploadPartCommand({
          Bucket: s3().bucket,
          Key,
          UploadId,
          PartNumber: 1,
          Body: randomBytes(5 * MIB),
        }),
      );
    };
    await begin('sweep/killed.mp4');
    await begin('elsewhere/other.mp4');
    expect((await s3().unfinishedUploads()).sort()).toEqual(['elsewhere/other.mp4', 'sweep/killed.mp4']);
    const recent = await openStore({ output: `s3://${s3().bucket}/sweep`, staleUploadMs: 60_000 });
    await recent.sweepUnfinished();
    expect((await s3().unfinishedUploads()).sort()).toEqual(['elsewhere/other.mp4', 'sweep/killed.mp4']);
    await store.sweepUnfinished();
    expect(await s3().unfinishedUploads()).toEqual(['elsewhere/other.mp4']);
    // Putting a key aborts what a killed upload of that very key left, whatever its age.
    await begin('sweep/again.mp4');
    const data = randomBytes(2048);
    await recent.put('again.mp4', chunks(data));
    expect(await s3().unfinishedUploads()).toEqual(['elsewhere/other.mp4']);
    raw.destroy();
  });
});
