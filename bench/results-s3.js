#!/usr/bin/env node
/**
 * Results to an S3 bucket against results to disk (issue #30.4; goals, reported only: wall time of the
 * bucket ≤ 1.2 × the disk's, peak RSS ≤ 100 MB above the disk's, and flat for a 1 GB video).
 *
 * What apply does with each result, without the jobs around it: a body downloaded over loopback HTTP
 * (a server in this process standing for the service's result links) streamed into the ResultsStore,
 * 4 at a time (apply's concurrency). Each case runs in a child process of its own, so its peak RSS
 * (`process.resourceUsage().maxRSS`) is its own: "disk" is the folder backend
 * (dist/results/backends/folder/), "bucket" the S3 backend (dist/results/s3-results.js) against s3rver
 * started in this process on 127.0.0.1 (its folder on the same disk: the bucket case writes every byte
 * on this machine too, plus s3rver's own MD5 and the copy of a multipart upload's parts into the object).
 *
 * Beside each case's wall time and peak RSS: its CPU time (`<case>CpuMs`, the child's own
 * `process.cpuUsage()`) and this process's CPU time meanwhile (`<case>ServersCpuMs`: the source server,
 * plus s3rver in the bucket cases), so that what s3rver costs the shared cores is seen apart from the store.
 *
 *   node bench/results-s3.js            # 200 × 5 MB, then 1 × 1 GB (BENCH_BIG_MB=0 skips it)
 *   BENCH_RAW=1 node bench/results-s3.js   # also "raw": the same bodies PUT by a bare SDK client
 *   BENCH_NODE_ARGS=--cpu-prof node bench/results-s3.js   # options for each case's child (a profile)
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitResult, note, round } from './measure.js';
import { startBareS3Server } from './bare-s3-server.js';
import { startS3Server } from './s3-server.js';

const MIB = 1024 * 1024;
const SELF = fileURLToPath(import.meta.url);
// The build measured: `RUNNER_DIST=/path/to/dist` for another (an A/B against a build set aside), as
// bench/measure.js's runnerBin() takes it.
const DIST = process.env.RUNNER_DIST ?? fileURLToPath(new URL('../dist', import.meta.url));

if (process.argv[2] === '--child') await child(JSON.parse(process.argv[3]));
else await main();

/** One case: `count` bodies of `bytes` from `source` into the store, 4 at a time; prints {ms, rssMB}. */
async function child({ kind, output, source, count, bytes }) {
  const store =
    kind === 'raw'
      ? await rawBucketStore(output)
      : kind === 'bucket'
        ? await (await import(join(DIST, 'results/s3-results.js'))).openS3ResultsStore(output)
        : (
            await import(join(DIST, 'results/backends/folder/folder-results-store.js'))
          ).createFolderResultsStore(output);
  await store.preflight();
  const start = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const answer = await fetch(`${source}/result/${index}?bytes=${bytes}`);
      const stored = await store.put(`night/result-${index}.mp4`, answer.body, {
        contentType: 'video/mp4',
        sizeHint: bytes,
      });
      if (stored.bytes !== bytes)
        throw new Error(`result ${index}: ${stored.bytes} bytes stored, ${bytes} sent`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  const ms = performance.now() - start;
  store.close?.();
  const cpu = process.cpuUsage();
  process.stdout.write(
    `${JSON.stringify({ ms, rssMB: process.resourceUsage().maxRSS / 1024, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`,
  );
}

/**
 * The floor s3rver sets: each body buffered and sent by one PutObject of the same SDK client, with no
 * checksum of ours and an unsigned payload (so no hash on the client at all), nothing checked.
 */
async function rawBucketStore(output) {
  const { S3Client, PutObjectCommand, DeleteObjectCommand } = await import('@aws-sdk/client-s3');
  const [Bucket, ...prefix] = output.slice('s3://'.length).split('/');
  const client = new S3Client({
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const put = async (Key, Body, ContentType) => {
    const command = new PutObjectCommand({ Bucket, Key, Body, ContentLength: Body.length, ContentType });
    command.middlewareStack.add(
      (next) => (args) => {
        args.request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
        return next(args);
      },
      { step: 'build' },
    );
    await client.send(command);
  };
  return {
    async preflight() {
      await put(`${prefix.join('/')}/probe`, Buffer.from('probe'), 'text/plain');
      await client.send(new DeleteObjectCommand({ Bucket, Key: `${prefix.join('/')}/probe` }));
    },
    async put(key, body, { contentType }) {
      const chunks = [];
      for await (const chunk of body) chunks.push(chunk);
      const data = Buffer.concat(chunks);
      await put(`${prefix.join('/')}/${key}`, data, contentType);
      return { bytes: data.length };
    },
    close: () => client.destroy(),
  };
}

/** Serves `bytes` pseudo-random bytes per result (the same for a given index), in 64 KiB chunks. */
function startSource() {
  const block = Buffer.alloc(64 * 1024);
  for (let at = 0; at < block.length; at += 32)
    createHash('sha256').update(String(at)).digest().copy(block, at);
  const server = createServer((request, answer) => {
    const bytes = Number(new URL(request.url, 'http://x').searchParams.get('bytes'));
    answer.writeHead(200, { 'content-type': 'video/mp4', 'content-length': bytes });
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const chunk = block.subarray(0, Math.min(block.length, bytes - sent));
        sent += chunk.length;
        if (!answer.write(chunk)) return answer.once('drain', pump);
      }
      answer.end();
    };
    pump();
  });
  // A connection waits idle while the store finishes the result before it (a multipart upload's end):
  // past Node's 5 s keep-alive the server would close it just as fetch reuses it.
  server.keepAliveTimeout = 600_000;
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

function runChild(spec, env) {
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
        SELF,
        '--child',
        JSON.stringify(spec),
      ],
      {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    proc.stdout.on('data', (data) => (out += data));
    proc.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`)),
    );
  });
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'runner-bench-s3-'));
  // `BENCH_S3=bare`: a bare endpoint that leaves a real store's own work (hashing every byte again) off
  // these cores (bench/bare-s3-server.js); by default s3rver.
  const s3 = process.env.BENCH_S3 === 'bare' ? await startBareS3Server(dir) : await startS3Server(dir);
  const sourceServer = await startSource();
  const source = `http://127.0.0.1:${sourceServer.address().port}`;
  const { env } = s3;
  const results = {};
  try {
    const count = Number(process.env.BENCH_COUNT ?? 200);
    const bytes = Number(process.env.BENCH_MB ?? 5) * MIB;
    const cases = [
      ['disk', { kind: 'disk', output: join(dir, 'disk') }],
      ['bucket', { kind: 'bucket', output: 's3://results/disk-vs-bucket' }],
    ];
    if (process.env.BENCH_RAW === '1') cases.push(['raw', { kind: 'raw', output: 's3://results/raw' }]);
    for (const [name, spec] of cases) {
      note(`${count} × ${bytes / MIB} MB to the ${name}`);
      const before = process.cpuUsage();
      const { ms, rssMB, cpuMs } = await runChild({ ...spec, source, count, bytes }, env);
      const parent = process.cpuUsage(before);
      results[`${name}Ms`] = round(ms, 0);
      results[`${name}CpuMs`] = round(cpuMs, 0);
      results[`${name}ServersCpuMs`] = round((parent.user + parent.system) / 1000, 0);
      results[`${name}RssMB`] = round(rssMB);
    }
    results.wallRatio = round(results.bucketMs / results.diskMs, 2);
    results.rssAboveDiskMB = round(results.bucketRssMB - results.diskRssMB);
    const bigMB = Number(process.env.BENCH_BIG_MB ?? 1024);
    if (bigMB > 0) {
      for (const [name, spec] of cases.slice(0, 2)) {
        note(`1 × ${bigMB} MB to the ${name}`);
        const { ms, rssMB, cpuMs } = await runChild(
          { ...spec, output: `${spec.output}-big`, source, count: 1, bytes: bigMB * MIB },
          env,
        );
        results[`big${name === 'disk' ? 'Disk' : 'Bucket'}Ms`] = round(ms, 0);
        results[`big${name === 'disk' ? 'Disk' : 'Bucket'}CpuMs`] = round(cpuMs, 0);
        results[`big${name === 'disk' ? 'Disk' : 'Bucket'}RssMB`] = round(rssMB);
      }
    }
  } finally {
    sourceServer.close();
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  }
  emitResult('results-s3', results);
}
