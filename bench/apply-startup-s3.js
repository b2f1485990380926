#!/usr/bin/env node
/**
 * The start-up of `runner apply --output s3://…` against `--output DIR` (issue #30.3: the AWS SDK is
 * loaded only for a bucket output; what it costs a bucket apply before its first paid create). The
 * CLI the package ships (dist/bundle/runner.js) applies a one-job manifest against the simulator,
 * once with a folder output and once with a bucket (s3rver in this process, 127.0.0.1), interleaved,
 * `BENCH_STARTUP_RUNS` times each (default 10), each run a new run id and state folder. Timed: spawn to
 * the first POST the service receives (the create; a proxy in front of the simulator notes it), which
 * for a bucket includes loading the SDK and the preflight's probe object (a put and a delete). Reported:
 * min and median per case, and the difference of the medians.
 *
 *   node bench/apply-startup-s3.js
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startForwardingProxy } from './forwarding-proxy.js';
import { emitResult, note, round } from './measure.js';
import { startS3Server } from './s3-server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'dist/bundle/runner.js');
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 10);

/** A proxy in front of `target` that calls `onPost` at the first POST of each watch. */
async function startProxy(target) {
  let waiting;
  const proxy = await startForwardingProxy(target, (incoming) => {
    if (incoming.method === 'POST' && waiting !== undefined) {
      waiting({ at: performance.now(), path: incoming.url });
      waiting = undefined;
    }
  });
  return { ...proxy, nextPost: () => new Promise((done) => (waiting = done)) };
}

async function main() {
  const { startSimulator } = await import(join(ROOT, 'dist/simulator/index.js'));
  const dir = mkdtempSync(join(tmpdir(), 'runner-bench-startup-s3-'));
  const s3 = await startS3Server(dir);
  const simulator = await startSimulator({ timeScale: 0.001 });
  const proxy = await startProxy(simulator.baseUrl);
  const manifest = join(dir, 'one.yaml');
  writeFileSync(
    manifest,
    [
      'version: 1',
      'name: startup',
      'defaults:',
      '  kind: image',
      '  model: chatgpt-image-sangtao',
      'jobs:',
      '  - id: fox',
      '    prompt: A detailed ink picture of a fox in a misty forest at dawn [[one-image]]',
      '',
    ].join('\n'),
  );
  const env = {
    PATH: process.env.PATH ?? '',
    NO_COLOR: '1',
    CI: 'true',
    RUNNER_CACHE_DIR: join(dir, 'cache'),
    MEDIAGEN_BASE_URL: `${proxy.url}${new URL(simulator.baseUrl).pathname}`,
    MEDIAGEN_API_KEY: simulator.apiKey,
    ...s3.env,
  };
  const times = { folder: [], bucket: [] };
  const once = async (kind, index) => {
    const output = kind === 'folder' ? join(dir, `out-${index}`) : `s3://results/startup-${index}`;
    const args = [
      BIN,
      'apply',
      manifest,
      '--run',
      `${kind}-${index}`,
      '--state-dir',
      join(dir, `state-${kind}`),
    ];
    args.push('--output', output, '--yes', '--first-poll', '20', '--poll-interval', '10-20');
    const posted = proxy.nextPost();
    const start = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (data) => (stderr += data));
    const exited = new Promise((resolve) => child.on('close', resolve));
    const first = await Promise.race([posted, exited.then(() => undefined)]);
    const code = await exited;
    if (first === undefined || code !== 0) throw new Error(`${kind} apply exited ${code}: ${stderr}`);
    if (index === 'warm') note(`${kind}: the first POST is ${first.path}`);
    else times[kind].push(first.at - start);
  };
  try {
    // One unreported run of each fills V8's code cache of the CLI, as on any machine after its first.
    await once('folder', 'warm');
    await once('bucket', 'warm');
    for (let index = 0; index < RUNS; index++) {
      note(`run ${index + 1} of ${RUNS}`);
      await once('folder', index);
      await once('bucket', index);
    }
  } finally {
    proxy.close();
    await simulator.close();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const stats = (list) => {
    const sorted = [...list].sort((a, b) => a - b);
    return { min: round(sorted[0]), median: round(sorted[Math.floor(sorted.length / 2)]) };
  };
  const folder = stats(times.folder);
  const bucket = stats(times.bucket);
  emitResult('apply-startup-s3', {
    runs: RUNS,
    folderToCreateMinMs: folder.min,
    folderToCreateMedianMs: folder.median,
    bucketToCreateMinMs: bucket.min,
    bucketToCreateMedianMs: bucket.median,
    bucketMinusFolderMedianMs: round(bucket.median - folder.median),
  });
}

await main();
