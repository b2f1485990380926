/**
 * Small helpers shared by the benchmarks: a monotonic stopwatch and the one JSON result line each
 * benchmark prints on stdout (run.js parses the last line that starts with `{"bench":`).
 */
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
