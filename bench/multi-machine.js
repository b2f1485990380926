/**
 * Benchmark: one run of 200 image jobs with its state in PostgreSQL, applied by 1 machine and then by
 * 3 machines at once (separate processes of the built CLI, each with its own work folder), against
 * the time-scaled simulator (every job 45 s of simulated time, no faults, the account's 4 jobs at
 * once). Several machines share the account's 4 open-job slots through the database (issue 17.4), so
 * they cannot beat one machine; the goal is that sharing costs nothing: makespan of 3 machines ≤
 * makespan of 1. Runs are interleaved (1, 3, 1, 3, …) because other work loads the machine. Also
 * reports the simulator's peak of open jobs (must stay ≤ 4) and creates per job (must be 1).
 * Uses `BENCH_STATE_URL` when set, else starts a throwaway server (`initdb` + `pg_ctl` on 127.0.0.1).
 *
 *   npm run build && node bench/multi-machine.js        # BENCH_RUNS=2 pairs by default
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { startSimulator } from '../dist/simulator/index.js';
import { emitResult, median, note, round } from './measure.js';
import { startPgServer } from './pg-server.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const MACHINES = Number(process.env.BENCH_MACHINES ?? 3);
const SUBJECTS = 20;
const STYLES = 10;
const JOBS = SUBJECTS * STYLES;
const JOB_DURATION_MS = 45_000;
/** As executor-200: 45 s of simulated time takes 0.495 s. */
const TIME_SCALE = 0.011;
const CONCURRENCY = 4;
const CLI = fileURLToPath(new URL('../dist/bundle/runner.js', import.meta.url));

function manifestText(name) {
  const list = (prefix, count) => `[${Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(', ')}]`;
  return [
    'version: 1',
    `name: ${name}`,
    'defaults:',
    '  kind: image',
    '  model: chatgpt-image-sangtao',
    'jobs:',
    "  - id: 'img-{{ subject }}-{{ style }}'",
    '    matrix:',
    `      subject: ${list('animal', SUBJECTS)}`,
    `      style: ${list('style', STYLES)}`,
    '    prompt: A detailed {{ style }} picture of a {{ subject }} standing in a misty forest at dawn',
    '    params:',
    '      format: png',
    '',
  ].join('\n');
}

function runCli(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', CI: 'true', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

/** One run of the pipeline by `machines` processes at once: wall time from the first start to the last exit. */
async function applyWith(machines, stateUrl, runId) {
  const simulator = await startSimulator({
    timeScale: TIME_SCALE,
    seed: 7,
    idempotencyWindowMs: Math.ceil(300_000 / TIME_SCALE),
    account: { purchasedCredit: 100_000, subscriptionImageQuota: 0 },
  });
  const dirs = [];
  try {
    const scale = (ms) => String(Math.round(ms * TIME_SCALE));
    const starts = [];
    for (let index = 0; index < machines; index++) {
      const dir = await mkdtemp(join(tmpdir(), 'runner-bench-multi-'));
      dirs.push(dir);
      const file = join(dir, 'bench-multi.yaml');
      await writeFile(file, manifestText('bench-multi'), 'utf8');
      starts.push({ dir, file });
    }
    const started = performance.now();
    // When the first and the last create reached the service: the makespan apart from start-up and exit.
    let firstCreate;
    let lastCreate;
    let seen = 0;
    // When the service last heard from any machine (the last poll or download): what follows is each
    // process's own end (reading the run, writing its report, closing), on this machine's cores.
    let lastRequest;
    let requestsSeen = 0;
    const watch = setInterval(() => {
      const stats = simulator.stats();
      const requests = Object.values(stats.requests).reduce((sum, n) => sum + n, 0);
      if (requests !== requestsSeen) {
        requestsSeen = requests;
        lastRequest = performance.now() - started;
      }
      const created = stats.jobsCreated;
      if (created === seen) return;
      seen = created;
      firstCreate ??= performance.now() - started;
      lastCreate = performance.now() - started;
    }, 5);
    const results = await Promise.all(
      starts.map(({ dir, file }, index) =>
        runCli(
          [
            'apply',
            file,
            '--yes',
            '--run',
            runId,
            '--output',
            join(dir, 'out'),
            // The production poll timing (3–5 s, first poll at 10 s), scaled like the simulator.
            '--poll-interval',
            `${scale(3_000)}-${scale(5_000)}`,
            '--first-poll',
            scale(10_000),
          ],
          {
            MEDIAGEN_BASE_URL: simulator.baseUrl,
            MEDIAGEN_API_KEY: simulator.apiKey,
            RUNNER_STATE_URL: stateUrl,
            RUNNER_MACHINE: `bench-${index + 1}`,
          },
        ),
      ),
    );
    const ms = performance.now() - started;
    clearInterval(watch);
    const failed = results.find((result) => result.code !== 0);
    if (failed !== undefined) throw new Error(`an apply exited ${failed.code}: ${failed.stderr}`);
    const stats = simulator.stats();
    return {
      ms,
      firstCreate,
      lastCreate,
      lastRequest,
      created: stats.jobsCreated,
      peakOpen: stats.maxOpenAtOnce,
    };
  } finally {
    await simulator.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const server = process.env.BENCH_STATE_URL === undefined ? await startPgServer() : undefined;
  const stateUrl = process.env.BENCH_STATE_URL ?? server.url;
  const idealMs = Math.ceil(JOBS / CONCURRENCY) * JOB_DURATION_MS * TIME_SCALE;
  const one = [];
  const many = [];
  const spans = { 1: [], [MACHINES]: [] };
  const starts = { 1: [], [MACHINES]: [] };
  const serviceDone = { 1: [], [MACHINES]: [] };
  let peakOpen = 0;
  let createsPerJob = 0;
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const [machines, into] of [
        [1, one],
        [MACHINES, many],
      ]) {
        const result = await applyWith(machines, stateUrl, `r${run}-m${machines}-${Date.now()}`);
        into.push(result.ms);
        spans[machines].push(result.lastCreate - result.firstCreate);
        starts[machines].push(result.firstCreate);
        serviceDone[machines].push(result.lastRequest);
        peakOpen = Math.max(peakOpen, result.peakOpen);
        createsPerJob = Math.max(createsPerJob, result.created / JOBS);
        note(
          `${machines} machine(s): ${round(result.ms / 1000, 2)} s (ideal ${round(idealMs / 1000, 2)} s); first create at ${round(result.firstCreate / 1000, 2)} s, creates span ${round((result.lastCreate - result.firstCreate) / 1000, 2)} s, last request at ${round(result.lastRequest / 1000, 2)} s; ${result.created} creates, peak ${result.peakOpen} open`,
        );
      }
    }
  } finally {
    await server?.stop();
  }
  emitResult('multi-machine', {
    jobs: JOBS,
    machines: MACHINES,
    idealMs: round(idealMs),
    oneMachineMedianMs: round(median(one)),
    manyMachinesMedianMs: round(median(many)),
    oneMachineRatio: round(median(one) / idealMs, 3),
    manyMachinesRatio: round(median(many) / idealMs, 3),
    manyOverOne: round(median(many) / median(one), 3),
    oneFirstCreateMedianMs: round(median(starts[1])),
    manyFirstCreateMedianMs: round(median(starts[MACHINES])),
    oneCreateSpanMedianMs: round(median(spans[1])),
    manyCreateSpanMedianMs: round(median(spans[MACHINES])),
    // The service's work done (its last request): the makespan without the processes' own ends.
    oneLastRequestMedianMs: round(median(serviceDone[1])),
    manyLastRequestMedianMs: round(median(serviceDone[MACHINES])),
    manyOverOneToLastRequest: round(median(serviceDone[MACHINES]) / median(serviceDone[1]), 3),
    peakOpenJobs: peakOpen,
    createsPerJob,
    runs: RUNS,
    goal: `${MACHINES} machines no slower than 1 (many/one ≤ 1.0); peak open jobs ≤ ${CONCURRENCY}; 1 create per job`,
  });
}

await main();
