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
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitResult, note, round } from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'dist/bundle/runner.js');
const SIZES = (process.env.BENCH_IMAGE_MB ?? '48,192').split(',').map(Number);

/** A proxy in front of the S3 server that notes each request as `METHOD path`. */
function startRecorder(target) {
  const upstream = new URL(target);
  const seen = [];
  const server = createServer((incoming, answer) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (reply) => {
        answer.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(answer);
      },
    );
    incoming.pipe(out);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() }),
    ),
  );
}

async function main() {
  const { startSimulator } = await import(join(ROOT, 'dist/simulator/index.js'));
  const { default: S3rver } = await import('s3rver');
  const dir = mkdtempSync(join(tmpdir(), 'runner-bench-large-image-'));
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: join(dir, 's3'),
    silent: true,
    configureBuckets: [{ name: 'results' }],
  });
  const { port } = await s3.run();
  const recorder = await startRecorder(`http://127.0.0.1:${port}`);
  const simulator = await startSimulator({ timeScale: 0.001 });
  const env = {
    PATH: process.env.PATH ?? '',
    NO_COLOR: '1',
    CI: 'true',
    TMPDIR: join(dir, 'tmp'),
    RUNNER_CACHE_DIR: join(dir, 'cache'),
    MEDIAGEN_BASE_URL: simulator.baseUrl,
    MEDIAGEN_API_KEY: simulator.apiKey,
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL_S3: recorder.url,
    AWS_CONFIG_FILE: join(dir, 'aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
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
