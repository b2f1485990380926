/**
 * Small helpers shared by the benchmarks: a monotonic stopwatch and the one JSON result line each
 * benchmark prints on stdout (run.js parses the last line that starts with `{"bench":`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

/** Runs `fn` (sync or async) and returns `{ value, ms }`. */
export async function timeIt(fn) {
  const start = performance.now();
  const value = await fn();
  return { value, ms: round(performance.now() - start) };
}

/** Rounds to 0.1 (milliseconds, megabytes). */
export function round(n, digits = 1) {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Prints the result line, adding the process's peak RSS (KiB, as `resourceUsage` reports it). */
export function emitResult(bench, results) {
  const maxRssKiB = process.resourceUsage().maxRSS;
  // The 1-minute load average: other work on a 2-core machine shows up in every timing.
  const line = {
    bench,
    ...results,
    maxRssKiB,
    maxRssMB: round(maxRssKiB / 1024),
    loadAvg1: round(loadavg()[0], 2),
  };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Human-readable progress goes to stderr so stdout stays one JSON line. */
export function note(message) {
  process.stderr.write(`  [${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/** The middle value of `values` (the mean of the two middle ones for an even count). */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The catalog as `runner models --json` would save it: fetched from the simulator over HTTP. */
export async function fetchSimulatorCatalog() {
  const { startSimulator } = await import('../dist/simulator/index.js');
  const { createServiceClient } = await import('../dist/service/client.js');
  const sim = await startSimulator({ timeScale: 0.001 });
  const client = createServiceClient({ baseUrl: sim.baseUrl, apiKey: sim.apiKey });
  try {
    return await client.listModels();
  } finally {
    await client.close?.();
    await sim.close();
  }
}

/**
 * The CLI as the package ships it (`bin`: dist/bundle/runner.js), of this checkout's build or of the
 * build in `RUNNER_DIST` (e.g. one made before a change); a build older than the bundle has only
 * dist/cli/bin.js, which is then measured.
 */
export function runnerBin(
  dist = process.env.RUNNER_DIST ?? fileURLToPath(new URL('../dist', import.meta.url)),
) {
  const bundled = join(dist, 'bundle/runner.js');
  return existsSync(bundled) ? bundled : join(dist, 'cli/bin.js');
}

const REPORT_RSS_AT_EXIT =
  'data:text/javascript,process.on("exit",()=>process.stderr.write("\\nBENCH_MAXRSS_KIB="+process.resourceUsage().maxRSS+"\\n"))';

/**
 * A resumed `runner apply` of the manifest `gen` (journal-replay.js's `--generate`) with nothing left
 * to run, as a user runs it: `stateArgs` say where its state is; its stdout counted, not kept. Its wall
 * time and its own peak RSS; rejects unless it exits 0 having found no job to run.
 */
export function runResumedApply(stateArgs, gen, env) {
  const args = [
    '--import',
    REPORT_RSS_AT_EXIT,
    runnerBin(),
    'apply',
    gen.manifestFile,
    '--yes',
    '--max-jobs',
    '200000',
    ...stateArgs,
    '--output',
    gen.outputDir,
  ];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.on('data', () => undefined);
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = round(performance.now() - started);
      const match = /BENCH_MAXRSS_KIB=(\d+)/.exec(stderr);
      if (code !== 0 || !/0 of \d+ jobs to run/.test(stderr)) {
        reject(new Error(`apply exited ${code}: ${stderr.slice(-2000)}`));
        return;
      }
      resolve({ ms, maxRssKiB: Number(match?.[1] ?? 0) });
    });
  });
}
