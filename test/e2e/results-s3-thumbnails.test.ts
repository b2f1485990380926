import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import { THUMBNAIL_SIZE, thumbnailNameOf } from '../../src/report/thumbnails.js';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { startFaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';
import { makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * Thumbnails in the bucket (#30.3): `apply --output s3://…` puts each image result's thumbnail beside
 * the results under the key the folder layout uses (`thumbnails/<name>.<sha12>.webp`), and the grid
 * image too, so the prefix served as a static site shows the gallery from thumbnails, not from the
 * full images. `runner report` lists the bucket once and puts again none it holds; one the bucket lacks
 * (a run stored before thumbnails went into buckets) is made there.
 */
const s3 = useS3Server();
const FAST = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];

const listKeys = (prefix: string) => s3().listKeys(prefix);
const readObject = (key: string) => s3().readObject(key);

describe('thumbnails in the bucket (#30.3)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'apply puts each thumbnail and the grid image beside the results; report puts none again and makes the missing one',
    { timeout: 120_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-thumbs');
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir) };
      const { file } = await writeImageMatrixManifest(dir, {
        name: 'thumbs',
        subjects: ['fox', 'owl'],
        styles: ['ink', 'oil'],
      });
      const output = `s3://${s3().bucket}/thumbs`;
      // Through a proxy recording what reaches the store: each thumbnail is made from the bytes as they
      // streamed into the bucket, never by reading a result back (a GET, egress where billed).
      const recorder = await startFaultProxy(s3().endpoint, () => 'pass');
      let seenByApply: string[];
      try {
        const applied = await runCli(['apply', file, '--run', 'night-1', '--output', output, ...FAST], {
          env: { ...env, AWS_ENDPOINT_URL_S3: recorder.endpoint },
        });
        expect(applied.code, applied.stderr).toBe(0);
        expect(applied.stderr).not.toContain('No thumbnail');
        seenByApply = [...recorder.seen];
      } finally {
        await recorder.close();
      }
      expect(seenByApply.filter((line) => /^GET \/[^/]+\/thumbs\/img-[^/?]+\.png/.test(line))).toEqual([]);
      expect(
        seenByApply.filter((line) => line.startsWith(`PUT /${s3().bucket}/thumbs/thumbnails/img-`)),
      ).toHaveLength(4);

      const index = JSON.parse((await readObject('thumbs/results.json')).toString('utf8')) as ResultsIndex;
      const images = index.results.filter((row) => row.file !== undefined && row.sha256 !== undefined);
      expect(images.length).toBeGreaterThanOrEqual(4);
      // results.json names each result by its key (relative to the prefix).
      const thumbnailKeys = images.map((row) => `thumbnails/${thumbnailNameOf(row.file!, row.sha256!)}`);
      const keys = await listKeys('thumbs');
      for (const key of thumbnailKeys) expect(keys).toContain(`thumbs/${key}`);
      expect(
        keys.filter((key) => key.startsWith('thumbs/thumbnails/grid-') && key.endsWith('.png')),
      ).toHaveLength(1);

      // Each thumbnail is a WebP of the result fitted in THUMBNAIL_SIZE px, as a folder's would be.
      for (const [at, row] of images.entries()) {
        const original = await sharp(await readObject(`thumbs/${row.file!}`)).metadata();
        const thumbnail = await sharp(await readObject(`thumbs/${thumbnailKeys[at]!}`)).metadata();
        expect(thumbnail.format).toBe('webp');
        const scale = Math.min(1, THUMBNAIL_SIZE / Math.max(original.width, original.height));
        expect(thumbnail.width).toBe(Math.round(original.width * scale));
        expect(thumbnail.height).toBe(Math.round(original.height * scale));
      }

      // The page links each thumbnail and the grid image by its key relative to the page.
      const page = (await readObject('thumbs/report.html')).toString('utf8');
      for (const key of thumbnailKeys) expect(page).toContain(`"${key}"`);
      expect(page).toMatch(/"thumbnails\/grid-[^"]+\.png"/);

      // A second report, through a proxy recording what reaches the store: the thumbnails are listed
      // once (no HEAD, no PUT of any; read only to draw the grid image); only the page and the grid
      // image are put again.
      const proxy = await startFaultProxy(s3().endpoint, () => 'pass');
      try {
        const reported = await runCli(['report', file, '--run', 'night-1'], {
          env: { ...env, AWS_ENDPOINT_URL_S3: proxy.endpoint },
        });
        expect(reported.code, reported.stderr).toBe(0);
        const thumbnailRequests = proxy.seen.filter(
          (line) => line.includes('/thumbs/thumbnails/') && !line.includes('/thumbnails/grid-'),
        );
        expect(thumbnailRequests.filter((line) => line.startsWith('PUT '))).toEqual([]);
        expect(thumbnailRequests.filter((line) => line.startsWith('HEAD '))).toEqual([]);
        const listings = proxy.seen.filter(
          (line) => line.startsWith(`GET /${s3().bucket}/?`) && line.includes('list-type=2'),
        );
        expect(listings, proxy.seen.join('\n')).toHaveLength(1);
        expect(proxy.seen.some((line) => line.startsWith(`PUT /${s3().bucket}/thumbs/report.html`))).toBe(
          true,
        );
      } finally {
        await proxy.close();
      }

      // A thumbnail the bucket lacks (a run stored before thumbnails went into buckets) is made there.
      await s3().deleteObject(`thumbs/${thumbnailKeys[0]!}`);
      const again = await runCli(['report', file, '--run', 'night-1'], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(await listKeys('thumbs')).toContain(`thumbs/${thumbnailKeys[0]!}`);
      expect((await sharp(await readObject(`thumbs/${thumbnailKeys[0]!}`)).metadata()).format).toBe('webp');
    },
  );
});
