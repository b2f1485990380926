/**
 * Benchmark: how long the CLI takes to start and do a small offline job, and how many module files it
 * loads on the way. Wall time of the whole child process (spawn to exit), min and median of RUNS runs
 * each, for `node -e 0` (the floor), `runner --help`, `runner validate --help` and
 * `runner validate pipelines/demo.yaml --catalog F` (offline, F saved from the simulator's catalog).
 * Module counts come from one extra run of each under the `module-count.js` preload (not timed).
 * Goals (issue #8, reported only): validate ≤ 150 ms, --help ≤ 100 ms.
 *
 *   node bench/startup.js                                  # 15 runs of each
 *   BENCH_STARTUP_RUNS=30 RUNNER_DIST=/other/dist node bench/startup.js
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { emitResult, median, note, round, runnerBin } from './measure.js';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** `RUNNER_DIST=/path/to/dist` measures another build (e.g. one made before a change). */
const BIN = runnerBin();
const HOOK = join(ROOT, 'bench/module-count.js');

function run(args, env = {}) {
  const start = performance.now();
  const child = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
  });
  const ms = performance.now() - start;
  if (child.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited ${child.status ?? child.signal}: ${child.stderr}`);
  }
  return { ms, stdout: child.stdout };
}

function summarize(samples) {
  return { minMs: round(Math.min(...samples)), medianMs: round(median(samples)) };
}

/** The distinct module files a run loads, and how many of them belong to each package. */
async function countModules(dir, args) {
  const listFile = join(dir, 'modules.txt');
  run(['--import', HOOK, ...args], { RUNNER_MODULE_LIST: listFile });
  const urls = new Set((await readFile(listFile, 'utf8')).split('\n').filter(Boolean));
  const packages = {};
  for (const url of urls) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    const name = match?.[1] ?? '(runner)';
    packages[name] = (packages[name] ?? 0) + 1;
  }
  return { modules: urls.size, packages };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'runner-bench-startup-'));
  try {
    const catalogFile = join(dir, 'catalog.json');
    await writeFile(catalogFile, run([BIN, 'models', '--json', '--simulate']).stdout);
    const cases = {
      nodeFloor: ['-e', '0'],
      help: [BIN, '--help'],
      validateHelp: [BIN, 'validate', '--help'],
      validate: [BIN, 'validate', 'pipelines/demo.yaml', '--catalog', catalogFile],
    };
    const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
    // Interleaved, so a burst of load from elsewhere on the machine touches every case alike.
    for (let i = 0; i < RUNS; i++) {
      for (const [name, args] of Object.entries(cases)) samples[name].push(run(args).ms);
    }
    const results = { runs: RUNS };
    for (const [name, list] of Object.entries(samples)) {
      const { minMs, medianMs } = summarize(list);
      results[`${name}MinMs`] = minMs;
      results[`${name}MedianMs`] = medianMs;
      note(`${name}: min ${minMs} ms, median ${medianMs} ms`);
    }
    const validateModules = await countModules(dir, cases.validate);
    const helpModules = await countModules(dir, cases.help);
    results.validateModules = validateModules.modules;
    results.helpModules = helpModules.modules;
    results.validateLoadsUndici = 'undici' in validateModules.packages;
    results.validatePackages = validateModules.packages;
    results.helpPackages = helpModules.packages;
    results.bin = BIN;
    results.goal = 'validate ≤ 150 ms, --help ≤ 100 ms';
    emitResult('startup', results);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
