import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stageStoreThumbnails } from '../../src/report/store-thumbnails.js';
import { unreadableMarkerOf } from '../../src/report/thumbnails.js';
import { openS3ResultsStore } from '../../src/results/s3-results.js';
import { startFaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';
import { brokenPng, imageEntry } from '../report-entry.js';

const s3 = useS3Server();

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runner-unreadable-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

/**
 * An image in a bucket that sharp cannot read (#30): the first report reads it once and leaves its
 * marker beside the thumbnails; a second report finds the marker in its one listing and reads the
 * image no more (a GET per report, egress where billed, for a preview that never comes).
 */
describe('an unreadable image in the bucket', () => {
  it('is read by the first report only', async () => {
    const proxy = await startFaultProxy(s3().endpoint, () => 'pass');
    const env = {
      ...s3().cliEnv(dir),
      AWS_ENDPOINT_URL_S3: proxy.endpoint,
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const store = await openS3ResultsStore(`s3://${s3().bucket}/unreadable`);
    try {
      const { bytes, sha256 } = brokenPng();
      await store.put('night/broken.png', Readable.from([bytes]));
      const staging = join(dir, 'staging');
      const entries = [
        imageEntry('broken', [
          { index: 1, url: 'u', path: join(staging, 'night', 'broken.png'), sha256, mediaType: 'image' },
        ]),
      ];
      const reads = () =>
        proxy.seen.filter((line) => line.startsWith('GET /results/unreadable/night/broken.png'));

      const first = await stageStoreThumbnails(entries, store, staging, { stageAll: false });
      expect(first).toMatchObject({ made: 0, unreadable: 1, failed: 0 });
      expect(reads()).toHaveLength(1);
      expect(await s3().listKeys('unreadable/thumbnails')).toEqual([
        `unreadable/thumbnails/${unreadableMarkerOf(sha256)}`,
      ]);

      const second = await stageStoreThumbnails(entries, store, staging, { stageAll: true });
      expect(second).toMatchObject({ made: 0, unreadable: 1, failed: 0 });
      expect(reads()).toHaveLength(1);
    } finally {
      store.close();
      await proxy.close();
    }
  });
});
