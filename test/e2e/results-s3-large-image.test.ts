import { createHash } from 'node:crypto';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { thumbnailNameOf } from '../../src/report/thumbnails.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { startFaultProxy } from '../s3-fault-proxy.js';
import { useS3Server } from '../s3-server.js';
import { IMAGE_MODEL, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * An image result over 32 MiB going to a bucket (#30): its thumbnail is made from a private file the
 * download wrote as it streamed into the bucket, not by reading the object back (a GET of the whole
 * image, egress where billed). Before, an image past 32 MiB was not kept and was read back.
 */
const s3 = useS3Server();
const FAST = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('a large image to a bucket (#30)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'gets its thumbnail without a GET of the image, and leaves no kept file behind',
    { timeout: 180_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-large-image');
      // The CLI's temporary folder is the test's: what the kept file leaves behind shows there.
      const temporary = join(dir, 'tmp');
      await mkdir(temporary);
      const file = join(dir, 'large.yaml');
      await writeFile(
        file,
        [
          'version: 1',
          'name: large',
          'defaults:',
          '  kind: image',
          `  model: ${IMAGE_MODEL}`,
          '  params: { format: png }',
          'jobs:',
          '  - id: poster',
          '    prompt: A detailed poster of a heron in a misty forest at dawn [[one-image]] [[image-mb:40]]',
          '  - id: stamp',
          '    prompt: A detailed stamp of an owl in a misty forest at dawn [[one-image]]',
          '',
        ].join('\n'),
      );
      const output = `s3://${s3().bucket}/large`;
      const proxy = await startFaultProxy(s3().endpoint, () => 'pass');
      let seen: string[];
      try {
        const applied = await runCli(['apply', file, '--run', 'night-1', '--output', output, ...FAST], {
          env: {
            ...simulatorEnv(simulator),
            ...s3().cliEnv(dir),
            AWS_ENDPOINT_URL_S3: proxy.endpoint,
            TMPDIR: temporary,
          },
        });
        expect(applied.code, applied.stderr).toBe(0);
        expect(applied.stderr).not.toContain('No thumbnail');
        seen = [...proxy.seen];
      } finally {
        await proxy.close();
      }

      const index = JSON.parse(
        (await s3().readObject('large/results.json')).toString('utf8'),
      ) as ResultsIndex;
      const poster = index.results.find((row) => row.id === 'poster');
      expect(poster?.file).toBeDefined();
      const key = `large/${poster!.file!}`;
      // The service's bytes, over 32 MiB, stored as they are (multipart: its parts' PUTs).
      const served = Buffer.from(await (await fetch(poster!.resultUrl ?? '')).arrayBuffer());
      expect(served.length).toBeGreaterThan(40 * 1024 * 1024);
      expect((await s3().storedBytes(key))?.equals(served)).toBe(true);
      expect(poster!.sha256).toBe(sha256(served));

      // No read of the image from the bucket; its thumbnail put beside the results, a WebP of it.
      expect(seen.filter((line) => line.startsWith(`GET /${s3().bucket}/${key}`))).toEqual([]);
      const thumbnail = `large/thumbnails/${thumbnailNameOf(poster!.file!, poster!.sha256!)}`;
      expect(seen.filter((line) => line.startsWith(`PUT /${s3().bucket}/${thumbnail}`))).toHaveLength(1);
      const meta = await sharp(await s3().readObject(thumbnail)).metadata();
      expect(meta.format).toBe('webp');
      expect(meta.width).toBe(256);

      // The kept file and its folder are gone.
      expect(await readdir(temporary)).toEqual([]);
    },
  );
});
