/**
 * Benchmark: what `apply` costs per job as runs grow. The real executor (state journal, downloads
 * into one output folder) runs 500 and then 5,000 image jobs against the simulator at a tiny time
 * scale, so the run is bound by CPU, not by waiting. The simulator runs in a child process of its
 * own: `process.cpuUsage()` of this process is the runner side only (executor, HTTP client, journal,
 * downloads); the simulator's CPU is reported apart. A cost that grows with the run (a scan of the
 * output folder or of all jobs per job) shows as CPU per job rising from 500 to 5,000 jobs, and from
 * the first to the last tenth of the 5,000-job run.
 *
 *   node bench/apply-scaling.js                       # 500 and 5,000 jobs
 *   BENCH_APPLY_JOBS=200,2000 node bench/apply-scaling.js
 *   RUNNER_DIST=/path/to/other/dist node bench/apply-scaling.js   # another build, e.g. before a change
 */
import { createHash } from 'node:crypto';
import { fork } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { emitResult, note, round } from './measure.js';

/** Run first and not reported. */
const WARM_UP_JOBS = 100;
const SIZES = (process.env.BENCH_APPLY_JOBS ?? '500,5000').split(',').map(Number);
const DIST = pathToFileURL(
  `${resolve(process.env.RUNNER_DIST ?? new URL('../dist', import.meta.url).pathname)}/`,
);
/** 45 s of simulated time takes 4.5 ms: jobs end almost at once, so the run measures the runner's CPU. */
const TIME_SCALE = 0.0001;
const JOB_DURATION_MS = 45_000;
const CONCURRENCY = 4;
const MODEL = 'chatgpt-image-sangtao';

/** The simulator child: starts, sends its address, answers `stats` with its counters and CPU time. */
async function runSimulatorChild() {
  const { startSimulator } = await import(new URL('simulator/index.js', DIST).href);
  const sim = await startSimulator({
    timeScale: TIME_SCALE,
    seed: 5,
    jobDurationMs: { image: JOB_DURATION_MS },
    account: { freeCredit: 0, purchasedCredit: 1e9, subscriptionImageQuota: 0 },
  });
  const cpuAtStart = process.cpuUsage();
  process.on('message', async (message) => {
    if (message === 'stats') {
      const cpu = process.cpuUsage(cpuAtStart);
      const stats = sim.stats();
      process.send({
        cpuMs: (cpu.user + cpu.system) / 1000,
        jobsCreated: stats.jobsCreated,
        requests: stats.requests,
      });
    } else if (message === 'close') {
      await sim.close();
      process.exit(0);
    }
  });
  process.send({ baseUrl: sim.baseUrl, apiKey: sim.apiKey });
}

function startSimulatorChild() {
  const child = fork(new URL(import.meta.url).pathname, ['--simulator'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = () => new Promise((resolve) => child.once('message', resolve));
  return {
    ready: next(),
    stats: () => {
      const answer = next();
      child.send('stats');
      return answer;
    },
    close: () =>
      new Promise((resolve) => {
        child.once('exit', resolve);
        child.send('close');
      }),
  };
}

function imageJob(index) {
  const id = `scale-${String(index).padStart(5, '0')}`;
  const prompt = `A watercolor advertisement of latte number ${index} on a wooden table in soft light`;
  return {
    id,
    kind: 'image',
    model: MODEL,
    prompt,
    params: { format: 'png', resolution: '1K', aspectRatio: '16:9' },
    estimatedCredits: 4,
    payloadHash: createHash('sha256').update(`${id}:${prompt}`).digest('hex'),
    source: {
      matrixValues: {},
      specIndex: 0,
      origins: { job: ['jobs', 0], model: ['jobs', 0, 'model'], params: {} },
    },
  };
}

const cpuMs = (usage) => (usage.user + usage.system) / 1000;

async function runOnce(jobs, modules) {
  const { systemClock, executePlan, createServiceClient, openRunState } = modules;
  const dir = await mkdtemp(join(tmpdir(), 'runner-bench-apply-'));
  const simulator = startSimulatorChild();
  const { baseUrl, apiKey } = await simulator.ready;
  const client = createServiceClient({ baseUrl, apiKey });
  const manifestFile = join(dir, 'bench.yaml');
  const outputDir = join(dir, 'out');
  const state = await openRunState({ manifestFile, pipeline: 'bench-apply', runId: 'bench' });
  try {
    const plan = {
      pipeline: 'bench-apply',
      manifestFile,
      jobs: Array.from({ length: jobs }, (_, i) => imageJob(i)),
      warnings: [],
    };
    const tenth = Math.max(1, Math.floor(jobs / 10));
    const marks = new Map();
    let downloaded = 0;
    let completed = 0;
    let failed = 0;
    const cpuAtStart = process.cpuUsage();
    const start = performance.now();
    const summary = await executePlan(
      plan,
      {
        client,
        // The run's state without its lock and snapshots, as this benchmark has always measured it.
        run: { journal: state.journal, jobs: state.jobs, uploadCache: state.uploadCache },
        clock: systemClock,
        signal: new AbortController().signal,
        onEvent(event) {
          if (event.type === 'job-failed') failed++;
          if (event.type === 'downloaded') downloaded++;
          if (event.type !== 'job-completed') return;
          completed++;
          // CPU time until the first tenth of the jobs completed, and from the last tenth on.
          if (completed === tenth || completed === jobs - tenth)
            marks.set(completed, process.cpuUsage(cpuAtStart));
        },
      },
      {
        runId: 'bench',
        concurrency: CONCURRENCY,
        pollIntervalMs: [1, 2],
        firstPollAfterMs: Math.round(JOB_DURATION_MS * TIME_SCALE),
        download: true,
        outputDir,
      },
    );
    const wallMs = performance.now() - start;
    if (completed !== jobs || downloaded < jobs)
      throw new Error(
        `${completed} of ${jobs} completed, ${downloaded} files: ${JSON.stringify(summary.counts)} exit ${summary.exitReason}`,
      );
    const runnerCpuMs = cpuMs(process.cpuUsage(cpuAtStart));
    const sim = await simulator.stats();
    const firstTenthMs = cpuMs(marks.get(tenth));
    const lastTenthMs = runnerCpuMs - cpuMs(marks.get(jobs - tenth));
    const files = (await readdir(outputDir)).length;
    const result = {
      jobs,
      done: summary.counts.done,
      failed,
      files,
      downloads: downloaded,
      wallMs: round(wallMs),
      runnerCpuMs: round(runnerCpuMs),
      runnerCpuMsPerJob: round(runnerCpuMs / jobs, 2),
      firstTenthCpuMsPerJob: round(firstTenthMs / tenth, 2),
      lastTenthCpuMsPerJob: round(lastTenthMs / tenth, 2),
      simulatorCpuMsPerJob: round(sim.cpuMs / jobs, 2),
      requestsPerJob: round(Object.values(sim.requests).reduce((a, b) => a + b, 0) / jobs, 2),
    };
    note(
      `${jobs} jobs: ${result.runnerCpuMsPerJob} ms CPU per job (first tenth ${result.firstTenthCpuMsPerJob}, last tenth ${result.lastTenthCpuMsPerJob}), simulator ${result.simulatorCpuMsPerJob}, wall ${round(wallMs / 1000, 2)} s`,
    );
    return result;
  } finally {
    await state.close();
    await client.close();
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const modules = {
    ...(await import(new URL('clock.js', DIST).href)),
    ...(await import(new URL('execute/index.js', DIST).href)),
    ...(await import(new URL('service/client.js', DIST).href)),
    ...(await import(new URL('state/backends/folder/open-run-state.js', DIST).href)),
  };
  // A short unreported run first, so the first measured size does not pay for the JIT warming up.
  await runOnce(WARM_UP_JOBS, modules);
  const runs = [];
  for (const jobs of SIZES) runs.push(await runOnce(jobs, modules));
  const results = { timeScale: TIME_SCALE, concurrency: CONCURRENCY, dist: DIST.pathname, runs };
  for (const run of runs) {
    results[`cpuMsPerJob${run.jobs}`] = run.runnerCpuMsPerJob;
    results[`lastTenthCpuMsPerJob${run.jobs}`] = run.lastTenthCpuMsPerJob;
    results[`simCpuMsPerJob${run.jobs}`] = run.simulatorCpuMsPerJob;
    results[`wallMs${run.jobs}`] = run.wallMs;
  }
  const [small, large] = [runs[0], runs.at(-1)];
  // Steady-state cost (the last tenth of each run, JIT warm) of the largest run over the smallest,
  // and within the largest run: last tenth over first tenth. Both stay near 1 when cost is flat.
  results.lastTenthGrowth = round(large.lastTenthCpuMsPerJob / small.lastTenthCpuMsPerJob, 2);
  results.withinRunGrowth = round(large.lastTenthCpuMsPerJob / large.firstTenthCpuMsPerJob, 2);
  results.goal = 'CPU per job flat as the run grows (growth ratios ≈ 1)';
  emitResult('apply-scaling', results);
}

if (process.argv.includes('--simulator')) await runSimulatorChild();
else await main();
