/**
 * Benchmark: how long the CLI takes to start and do a small offline job, and how many module files it
 * loads on the way. Wall time of the whole child process (spawn to exit), min and median of RUNS runs
 * each, for `node -e 0` (the floor), `runner --help`, `runner validate --help` and
 * `runner validate pipelines/demo.yaml --catalog F` (offline, F saved from the simulator's catalog), with
 * V8's code cache of the CLI in the cache folder (`validate`, the usual case: an earlier run wrote it)
 * and with an empty cache folder each run (`validateColdCache`: the first command after installing, a
 * new build or another Node).
 * Module counts come from one extra run of each under the `module-count.js` preload (not timed).
 * Goals (issue #8, reported only): validate ≤ 150 ms, --help ≤ 100 ms.
 *
 *   node bench/startup.js                                  # 15 runs of each
 *   BENCH_COMPARE_DIST=/tmp/old/dist node bench/startup.js  # and another build's, interleaved
 *   BENCH_STARTUP_RUNS=30 RUNNER_DIST=/other/dist node bench/startup.js
 *   BENCH_LAYERS=1 node bench/startup.js                   # and without the code cache, the bundle
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { emitResult, median, note, round, runnerBin } from './measure.js';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 15);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** `RUNNER_DIST=/path/to/dist` measures another build (e.g. one made before a change). */
const BIN = runnerBin();
/**
 * `BENCH_COMPARE_DIST=/path/to/dist` adds `compareHelp` and `compareValidate`: another build's `--help`
 * and `validate`, interleaved with this one's, e.g. the build an issue measured (a machine's speed
 * drifts; the ratio to a build run in the same minutes does not).
 */
const COMPARE_BIN = process.env.BENCH_COMPARE_DIST && runnerBin(process.env.BENCH_COMPARE_DIST);
const HOOK = join(ROOT, 'bench/module-count.js');
/**
 * `BENCH_LAYERS=1` adds each start-up layer's absence (#21.4): `…NoCodeCache` runs the bundle itself
 * (`main.cjs`, no V8 code cache), `…NoBundle` the tsc output (`cli/bin.js`, neither).
 */
const LAYERS = process.env.BENCH_LAYERS === '1';
const BUNDLE = join(dirname(BIN), 'main.cjs');
const UNBUNDLED = join(dirname(dirname(BIN)), 'cli/bin.js');

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
async function countModules(dir, args, env = {}) {
  const listFile = join(dir, 'modules.txt');
  run(['--import', HOOK, ...args], { ...env, RUNNER_MODULE_LIST: listFile });
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
    const validate = [BIN, 'validate', 'pipelines/demo.yaml', '--catalog', catalogFile];
    const warmCache = { RUNNER_CACHE_DIR: join(dir, 'cache') };
    let coldRuns = 0;
    const cases = {
      nodeFloor: { args: ['-e', '0'] },
      help: { args: [BIN, '--help'] },
      validateHelp: { args: [BIN, 'validate', '--help'] },
      validate: { args: validate, env: () => warmCache },
      validateColdCache: {
        args: validate,
        env: () => ({ RUNNER_CACHE_DIR: join(dir, `cold-${coldRuns++}`) }),
      },
      ...(LAYERS
        ? {
            helpNoCodeCache: { args: [BUNDLE, '--help'] },
            validateNoCodeCache: { args: [BUNDLE, ...validate.slice(1)], env: () => warmCache },
            helpNoBundle: { args: [UNBUNDLED, '--help'] },
            validateNoBundle: { args: [UNBUNDLED, ...validate.slice(1)], env: () => warmCache },
          }
        : {}),
      ...(COMPARE_BIN
        ? {
            compareHelp: { args: [COMPARE_BIN, '--help'] },
            compareValidate: { args: [COMPARE_BIN, ...validate.slice(1)], env: () => warmCache },
          }
        : {}),
    };
    run(validate, warmCache);
    const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
    // Interleaved, so a burst of load from elsewhere on the machine touches every case alike.
    for (let i = 0; i < RUNS; i++) {
      for (const [name, { args, env }] of Object.entries(cases)) samples[name].push(run(args, env?.()).ms);
    }
    const results = { runs: RUNS };
    for (const [name, list] of Object.entries(samples)) {
      const { minMs, medianMs } = summarize(list);
      results[`${name}MinMs`] = minMs;
      results[`${name}MedianMs`] = medianMs;
      note(`${name}: min ${minMs} ms, median ${medianMs} ms`);
    }
    const validateModules = await countModules(dir, validate, warmCache);
    const helpModules = await countModules(dir, cases.help.args);
    results.validateModules = validateModules.modules;
    results.helpModules = helpModules.modules;
    results.validateLoadsUndici = 'undici' in validateModules.packages;
    results.validatePackages = validateModules.packages;
    results.helpPackages = helpModules.packages;
    results.bin = BIN;
    if (COMPARE_BIN) results.compareBin = COMPARE_BIN;
    results.goal = 'validate ≤ 150 ms, --help ≤ 100 ms';
    emitResult('startup', results);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
