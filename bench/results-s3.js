#!/usr/bin/env node
/**
 * Results to an S3 bucket against results to disk (issue #30.4; goals, reported only: wall time of the
 * bucket ≤ 1.2 × the disk's, peak RSS ≤ 100 MB above the disk's, and flat for a 1 GB video).
 *
 * What apply does with each result, without the jobs around it: a body downloaded over loopback HTTP
 * (a server in this process standing for the service's result links) streamed into the ResultsStore,
 * 4 at a time (apply's concurrency). Each case runs in a child process of its own, so its peak RSS
 * (`process.resourceUsage().maxRSS`) and CPU time are its own: "disk" is the folder backend
 * (dist/results/backends/folder/), "bucket" the S3 backend (dist/results/s3-results.js) against an S3
 * endpoint in a third process on 127.0.0.1 (./s3-endpoint-process.js): s3rver by default (its folder
 * on the same disk: every byte written on this machine too, plus s3rver's own MD5), or with
 * `BENCH_S3=bare` the bare endpoint (./bare-s3-server.js: bodies kept in memory, checksums echoed).
 *
 * The two cases run interleaved `BENCH_ROUNDS` times (default 7), taking turns at going first, each
 * case's stored bytes removed and `sync` run between runs (untimed). Reported: min and median wall time
 * of each case, the median of the rounds' bucket / disk wall ratios (`wallRatio`, each round's pair run
 * back to back under the same load; `wallRatios` lists them), and beside it the median ratio of the
 * two children's own CPU times (`cpuRatio`: what the runner's bucket path costs against its disk path,
 * whatever else runs) and of all the CPU each case put on the machine (`machineCpuRatio`: child, source
 * and endpoint). `<case>CpuMs`: the child's `process.cpuUsage()`, start-up included;
 * `<case>SourceCpuMs`: this process (the source server) meanwhile; `bucketEndpointCpuMs`: the
 * endpoint's process meanwhile. Medians over the rounds; peak RSS is the largest round's.
 *
 *   node bench/results-s3.js            # 7 rounds of 200 × 5 MB, then 1 × 1 GB (BENCH_BIG_MB=0 skips it)
 *   BENCH_S3=bare BENCH_BIG_MB=0 node bench/results-s3.js   # the issue's measure
 *   BENCH_RAW=1 node bench/results-s3.js   # also "raw": the same bodies PUT by a bare SDK client
 *   BENCH_NODE_ARGS=--cpu-prof node bench/results-s3.js   # options for each case's child (a profile)
 */
import { execFileSync, fork, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitResult, median, note, round } from './measure.js';

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
    proc.on('close', (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}`));
      // The last line is the case's figures; lines before it are V8's when BENCH_NODE_ARGS asks for
      // them (`--trace-gc`), passed on to stderr.
      const lines = out.trimEnd().split('\n');
      if (lines.length > 1) process.stderr.write(`${lines.slice(0, -1).join('\n')}\n`);
      resolve(JSON.parse(lines.at(-1)));
    });
  });
}

/**
 * The S3 endpoint in a process of its own (./s3-endpoint-process.js), so that its CPU is its own:
 * `ask('cpu')` → `{ cpuMs }`, `ask('clear')` once a case's objects may go.
 */
async function startEndpoint(kind, dir) {
  const proc = fork(fileURLToPath(new URL('./s3-endpoint-process.js', import.meta.url)), [kind, dir], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // One question at a time: each answer settles the oldest waiting one.
  const waiting = [];
  proc.on('message', (message) => waiting.shift()?.resolve(message));
  proc.on('exit', (code) => {
    for (const { reject } of waiting.splice(0)) reject(new Error(`the S3 endpoint exited ${code}`));
  });
  const next = () => new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  const { env } = await next();
  return {
    env,
    ask: (message) => {
      const answer = next();
      proc.send(message);
      return answer;
    },
    close: () =>
      new Promise((resolve) => {
        proc.once('exit', resolve);
        proc.disconnect();
      }),
  };
}

/**
 * One run of a case in a child process: its wall time, CPU and peak RSS, and what the source server
 * (this process) and the S3 endpoint (its own) spent meanwhile.
 */
async function measureCase(spec, endpoint) {
  const endpointBefore = (await endpoint.ask('cpu')).cpuMs;
  const before = process.cpuUsage();
  const { ms, rssMB, cpuMs } = await runChild(spec, endpoint.env);
  const source = process.cpuUsage(before);
  const endpointCpuMs = (await endpoint.ask('cpu')).cpuMs - endpointBefore;
  return { ms, rssMB, cpuMs, sourceCpuMs: (source.user + source.system) / 1000, endpointCpuMs };
}

/** What a case stored goes before the next one, untimed; `sync` so that no case pays another's writeback. */
async function clearCase(spec, endpoint) {
  if (spec.kind === 'disk') rmSync(spec.output, { recursive: true, force: true });
  else await endpoint.ask('clear');
  execFileSync('sync');
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'runner-bench-s3-'));
  // `BENCH_S3=bare`: a bare endpoint that leaves a real store's own work (hashing every byte again,
  // writing it to disk) off these cores (bench/bare-s3-server.js); by default s3rver.
  const endpoint = await startEndpoint(process.env.BENCH_S3 === 'bare' ? 'bare' : 's3rver', dir);
  const sourceServer = await startSource();
  const source = `http://127.0.0.1:${sourceServer.address().port}`;
  const results = {};
  try {
    const count = Number(process.env.BENCH_COUNT ?? 200);
    const bytes = Number(process.env.BENCH_MB ?? 5) * MIB;
    const rounds = Number(process.env.BENCH_ROUNDS ?? 7);
    const cases = [
      ['disk', { kind: 'disk', output: join(dir, 'disk') }],
      ['bucket', { kind: 'bucket', output: 's3://results/disk-vs-bucket' }],
    ];
    if (process.env.BENCH_RAW === '1') cases.push(['raw', { kind: 'raw', output: 's3://results/raw' }]);
    const runs = Object.fromEntries(cases.map(([name]) => [name, []]));
    for (let turn = 0; turn < rounds; turn += 1) {
      // The cases take turns at going first, so that neither always follows the other.
      for (const [name, spec] of turn % 2 === 0 ? cases : [...cases].reverse()) {
        note(`round ${turn + 1}/${rounds}: ${count} × ${bytes / MIB} MB to the ${name}`);
        runs[name].push(await measureCase({ ...spec, source, count, bytes }, endpoint));
        await clearCase(spec, endpoint);
      }
    }
    for (const [name] of cases) {
      const of = (field) => runs[name].map((run) => run[field]);
      results[`${name}MinMs`] = round(Math.min(...of('ms')), 0);
      results[`${name}Ms`] = round(median(of('ms')), 0);
      results[`${name}CpuMs`] = round(median(of('cpuMs')), 0);
      results[`${name}SourceCpuMs`] = round(median(of('sourceCpuMs')), 0);
      if (name !== 'disk') results[`${name}EndpointCpuMs`] = round(median(of('endpointCpuMs')), 0);
      results[`${name}RssMB`] = round(Math.max(...of('rssMB')));
    }
    // Ratios of the same round's two runs (run back to back, under the same load), then their median.
    const ratios = (field) => runs.bucket.map((run, i) => run[field] / runs.disk[i][field]);
    results.rounds = rounds;
    results.wallRatios = ratios('ms').map((ratio) => round(ratio, 2));
    results.wallRatio = round(median(ratios('ms')), 2);
    results.cpuRatio = round(median(ratios('cpuMs')), 2);
    // All the CPU each case put on these cores: the child, the source server and the endpoint. On two
    // busy cores the wall ratio tends to it; on idle ones the bucket's three processes can overlap.
    const machineCpu = (run) => run.cpuMs + run.sourceCpuMs + run.endpointCpuMs;
    results.machineCpuRatio = round(
      median(runs.bucket.map((run, i) => machineCpu(run) / machineCpu(runs.disk[i]))),
      2,
    );
    results.rssAboveDiskMB = round(results.bucketRssMB - results.diskRssMB);
    const bigMB = Number(process.env.BENCH_BIG_MB ?? 1024);
    if (bigMB > 0) {
      for (const [name, spec] of cases.slice(0, 2)) {
        note(`1 × ${bigMB} MB to the ${name}`);
        const big = { ...spec, output: `${spec.output}-big` };
        const { ms, rssMB, cpuMs } = await measureCase(
          { ...big, source, count: 1, bytes: bigMB * MIB },
          endpoint,
        );
        await clearCase(big, endpoint);
        results[`big${name === 'disk' ? 'Disk' : 'Bucket'}Ms`] = round(ms, 0);
        results[`big${name === 'disk' ? 'Disk' : 'Bucket'}CpuMs`] = round(cpuMs, 0);
        results[`big${name === 'disk' ? 'Disk' : 'Bucket'}RssMB`] = round(rssMB);
      }
    }
  } finally {
    sourceServer.close();
    await endpoint.close();
    rmSync(dir, { recursive: true, force: true });
  }
  emitResult('results-s3', results);
}
