#!/usr/bin/env node
/**
 * The peak memory of `runner apply --output s3://…` for one image result of N MiB (issue #30): an image
 * past 32 MiB is kept for its thumbnail in a private file as it streams into the bucket, so the
 * process's peak RSS should not grow with the image. The CLI the package ships (dist/bundle/runner.js)
 * applies a one-job manifest whose result the simulator pads to N MiB (`[[image-mb:N]]`), to s3rver in
 * this process (127.0.0.1), for each N of BENCH_IMAGE_MB (default 48,192), under /usr/bin/time (its
 * peak RSS). Also counted: the GETs of the image the store saw (0: no read back).
 *
 *   node bench/apply-large-image-s3.js
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startForwardingProxy } from './forwarding-proxy.js';
import { emitResult, note, round } from './measure.js';
import { startS3Server } from './s3-server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'dist/bundle/runner.js');
const SIZES = (process.env.BENCH_IMAGE_MB ?? '48,192').split(',').map(Number);

/** A proxy in front of the S3 server that notes each request as `METHOD path`. */
async function startRecorder(target) {
  const seen = [];
  const proxy = await startForwardingProxy(target, (incoming) =>
    seen.push(`${incoming.method} ${incoming.url}`),
  );
  return { ...proxy, seen };
}

async function main() {
  const { startSimulator } = await import(join(ROOT, 'dist/simulator/index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'runner-bench-large-image-'));
  const s3 = await startS3Server(dir);
  const recorder = await startRecorder(s3.env.AWS_ENDPOINT_URL_S3);
  const simulator = await startSimulator({ timeScale: 0.001 });
  const env = {
    PATH: process.env.PATH ?? '',
    NO_COLOR: '1',
    CI: 'true',
    TMPDIR: join(dir, 'tmp'),
    RUNNER_CACHE_DIR: join(dir, 'cache'),
    MEDIAGEN_BASE_URL: simulator.baseUrl,
    MEDIAGEN_API_KEY: simulator.apiKey,
    ...s3.env,
    AWS_ENDPOINT_URL_S3: recorder.url,
  };
  const results = {};
  try {
    for (const mb of SIZES) {
      const manifest = join(dir, `large-${mb}.yaml`);
      writeFileSync(
        manifest,
        [
          'version: 1',
          `name: large-${mb}`,
          'defaults:',
          '  kind: image',
          '  model: chatgpt-image-sangtao',
          '  params: { format: png }',
          'jobs:',
          '  - id: poster',
          `    prompt: A detailed poster of a heron in a misty forest [[one-image]] [[image-mb:${mb}]]`,
          '',
        ].join('\n'),
      );
      mkdirSync(env.TMPDIR, { recursive: true });
      const args = ['-f', 'maxrss=%M', process.execPath, BIN, 'apply', manifest, '--run', `r-${mb}`];
      args.push('--state-dir', join(dir, 'state'), '--output', `s3://results/large-${mb}`, '--yes');
      args.push('--first-poll', '20', '--poll-interval', '10-20');
      note(`1 image of ${mb} MiB to the bucket`);
      const before = recorder.seen.length;
      const start = performance.now();
      const child = spawn('/usr/bin/time', args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (data) => (stderr += data));
      const code = await new Promise((resolve) => child.on('close', resolve));
      const ms = performance.now() - start;
      if (code !== 0) throw new Error(`apply exited ${code}: ${stderr}`);
      const rssKiB = Number(/maxrss=(\d+)/.exec(stderr)?.[1] ?? NaN);
      const reads = recorder.seen
        .slice(before)
        .filter((line) => line.startsWith(`GET /results/large-${mb}/poster`)).length;
      results[`rssMB_${mb}`] = round(rssKiB / 1024);
      results[`ms_${mb}`] = round(ms, 0);
      results[`imageGets_${mb}`] = reads;
      note(`peak RSS ${round(rssKiB / 1024)} MB, ${round(ms, 0)} ms, ${reads} GET(s) of the image`);
    }
  } finally {
    recorder.close();
    await simulator.close();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  }
  emitResult('apply-large-image-s3', results);
}

await main();
