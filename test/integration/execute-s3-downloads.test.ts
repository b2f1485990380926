import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { S3ResultsStore } from '../../src/results/backends/s3/s3-store.js';
import { createResultFiles } from '../../src/results/result-files.js';
import { openS3ResultsStore } from '../../src/results/s3-results.js';
import { useS3Server } from '../s3-server.js';
import { imageJob, useExecutorHarness } from './executor-harness.js';

/**
 * Results streamed from the service into a bucket (#30.3): the executor's downloads go through the
 * results store's put, never through a file of this machine, with the checks a download to disk makes.
 */
const s3 = useS3Server();
const harness = useExecutorHarness('runner-exec-s3-');
const { startService, run } = harness;
const PROMPT = 'A lighthouse on a cliff at dawn, watercolor';
const jobs = (count: number) =>
  Array.from({ length: count }, (_, i) => imageJob(`j${i}`, `${PROMPT} [[one-image]] number ${i}`));
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

let awsDir: string;
const opened: S3ResultsStore[] = [];
beforeAll(() => {
  awsDir = mkdtempSync(join(tmpdir(), 'runner-aws-'));
});
afterAll(() => rmSync(awsDir, { recursive: true, force: true }));
afterEach(() => {
  for (const store of opened.splice(0)) store.close();
  vi.unstubAllEnvs();
});

async function bucketFiles(prefix: string) {
  for (const [name, value] of Object.entries({
    ...s3().env,
    AWS_ENDPOINT_URL_S3: s3().endpoint,
    AWS_CONFIG_FILE: join(awsDir, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(awsDir, 'credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  }))
    vi.stubEnv(name, value);
  const store = await openS3ResultsStore(`s3://${s3().bucket}/${prefix}`);
  opened.push(store);
  return createResultFiles(store, undefined);
}

async function keysUnder(prefix: string): Promise<string[]> {
  const client = new S3Client({ forcePathStyle: true, endpoint: s3().endpoint, region: 'us-east-1' });
  try {
    const answer = await client.send(new ListObjectsV2Command({ Bucket: s3().bucket, Prefix: `${prefix}/` }));
    return (answer.Contents ?? []).map((object) => object.Key ?? '').sort();
  } finally {
    client.destroy();
  }
}

describe('downloads into a bucket (#30.3)', () => {
  it('streams every result into the bucket once, with the bytes the service serves, recorded by key', async () => {
    const { client } = await startService();
    const results = await bucketFiles('night');
    const first = await run(client, jobs(3), {}, { results });
    expect(first.summary.counts).toMatchObject({ done: 3, downloading: 0, downloadFailures: 0 });
    expect(await keysUnder('night')).toEqual(['night/j0.png', 'night/j1.png', 'night/j2.png']);
    for (const [id, state] of first.state) {
      const [url = ''] = state.attempts.at(-1)?.resultUrls ?? [];
      const served = Buffer.from(await (await fetch(url)).arrayBuffer());
      const stored = await s3().storedBytes(`night/${id}.png`);
      expect(stored?.equals(served), id).toBe(true);
      expect(state.downloads).toEqual([
        expect.objectContaining({ file: `${id}.png`, bytes: served.length, sha256: sha256(served) }),
      ]);
    }
    // Resumed: everything is in the bucket, nothing is fetched or stored again.
    const again = await run(client, jobs(3), {}, { results });
    expect(again.summary.counts).toMatchObject({ done: 3, downloading: 0 });
    expect(again.events.filter((event) => event.type === 'downloaded')).toEqual([]);
  });

  it('an answer that is not media reaches no bucket', async () => {
    const { client } = await startService({ hostile: { resultsOnApi: 1 } });
    const result = await run(client, jobs(1), {}, { results: await bucketFiles('api-links') });
    expect(result.summary.counts).toMatchObject({ done: 0, downloading: 1, downloadFailures: 1 });
    expect(await keysUnder('api-links')).toEqual([]);
  });

  it('a body cut short, retried and cut again, leaves nothing in the bucket, not even an upload', async () => {
    const { client } = await startService({ hostile: { truncateDownloadBytes: 100 } });
    const result = await run(client, jobs(1), {}, { results: await bucketFiles('cut') });
    expect(result.summary.counts).toMatchObject({ done: 0, downloading: 1, downloadFailures: 1 });
    expect(result.state.get('j0')?.downloads).toEqual([]);
    expect(await keysUnder('cut')).toEqual([]);
    expect(await s3().unfinishedUploads()).toEqual([]);
  });
});
