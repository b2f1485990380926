/**
 * Benchmark: the real CLI, `runner plan <file> --offline --catalog <catalog.json> --format json`, on one
 * matrix job of 1,000, 10,000, 100,000 and 1,000,000 image jobs, its report written to /dev/null. Each
 * size runs several times in a fresh child process (fewer for the larger sizes, so the whole benchmark
 * stays around two minutes); reports min and median of the wall time and of the child's own peak RSS
 * (read by a preloaded `--import` hook, as in plan-100k.js). Goals (issue #8, reported, never
 * enforced): 100,000 jobs ≤ 1.0 s and ≤ 200 MB; 1,000,000 jobs ≤ 6 s (issue #34; #8 asked 10 s) and ≤ 400 MB.
 *
 *   node bench/plan-scale.js            # every size
 *   node bench/plan-scale.js 1k 100k    # only those sizes (1k, 10k, 100k, 1m)
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { emitResult, fetchSimulatorCatalog, median, note, round, runnerBin } from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** name → [products, styles, variants] (their product is the job count) and runs. */
const SIZES = {
  '1k': { axes: [10, 10, 10], runs: 5 },
  '10k': { axes: [100, 10, 10], runs: 5 },
  '100k': { axes: [100, 100, 10], runs: 3 },
  '1m': { axes: [100, 100, 100], runs: 2 },
};
const REPORT_RSS_AT_EXIT =
  'data:text/javascript,process.on("exit",()=>process.stderr.write("\\nBENCH_MAXRSS_KIB="+process.resourceUsage().maxRSS+"\\n"))';

/** One image job entry whose matrix has the given axis sizes, with templated id, prompt and a local file. */
function renderManifest([products, styles, variants]) {
  const values = (count, prefix) => Array.from({ length: count }, (_, i) => `${prefix}${i}`).join(', ');
  return [
    'version: 1',
    'name: plan-scale',
    'defaults:',
    '  kind: image',
    '  model: chatgpt-image-sangtao',
    '  params: { format: png }',
    'vars:',
    '  brand: Acme Coffee',
    'jobs:',
    "  - id: '{{ product }}-{{ style }}-v{{ variant }}'",
    '    matrix:',
    `      product: [${values(products, 'p')}]`,
    `      style: [${values(styles, 's')}]`,
    `      variant: [${values(variants, '')}]`,
    '    prompt: >-',
    '      A watercolor advertisement of {{ product }} from {{ brand }} in {{ style }} style,',
    '      variant {{ variant }}, on a wooden table in soft morning light',
    '    params:',
    "      aspectRatio: '16:9'",
    '      resolution: 1K',
    '      referenceImages: [./logo.png]',
    '',
  ].join('\n');
}

/** Runs the CLI once with stdout on /dev/null; wall time from spawn to exit, and its own peak RSS. */
function runCliOnce(args, cwd) {
  return new Promise((resolve, reject) => {
    const devNull = openSync('/dev/null', 'w');
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', devNull, 'pipe'] });
    closeSync(devNull);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      const match = /BENCH_MAXRSS_KIB=(\d+)/.exec(stderr);
      resolve({ code, ms, rssMB: match ? Number(match[1]) / 1024 : undefined, stderr });
    });
  });
}

async function main() {
  const wanted = process.argv.slice(2).map((name) => name.toLowerCase());
  const sizes = Object.entries(SIZES).filter(([name]) => wanted.length === 0 || wanted.includes(name));
  const dir = await mkdtemp(join(tmpdir(), 'runner-bench-plan-scale-'));
  try {
    const catalogFile = join(dir, 'catalog.json');
    await writeFile(catalogFile, JSON.stringify(await fetchSimulatorCatalog(), null, 2));
    await copyFile(join(ROOT, 'pipelines/assets/logo.png'), join(dir, 'logo.png'));
    const results = {};
    for (const [name, { axes, runs }] of sizes) {
      const jobs = axes.reduce((a, b) => a * b, 1);
      const manifestFile = join(dir, `plan-${name}.yaml`);
      await writeFile(manifestFile, renderManifest(axes));
      const args = [
        '--import',
        REPORT_RSS_AT_EXIT,
        runnerBin(),
        'plan',
        manifestFile,
        '--offline',
        '--catalog',
        catalogFile,
        '--format',
        'json',
        '--max-jobs',
        String(jobs),
      ];
      const times = [];
      const rss = [];
      let exitCode = 0;
      for (let run = 0; run < runs; run++) {
        const result = await runCliOnce(args, dir);
        if (result.code !== 0) {
          exitCode = result.code;
          note(`${name}: exit ${result.code}: ${result.stderr.slice(0, 300)}`);
        }
        times.push(result.ms);
        if (result.rssMB !== undefined) rss.push(result.rssMB);
      }
      results[name] = {
        jobs,
        runs,
        minMs: round(Math.min(...times), 0),
        medianMs: round(median(times), 0),
        minRssMB: round(Math.min(...rss)),
        medianRssMB: round(median(rss)),
        exitCode,
      };
      note(`${name} (${jobs} jobs): ${JSON.stringify(results[name])}`);
    }
    const flat = {};
    for (const [name, figures] of Object.entries(results)) {
      for (const [key, value] of Object.entries(figures)) flat[`${name}.${key}`] = value;
    }
    emitResult('plan-scale', {
      ...flat,
      goal: '100k ≤ 1000 ms and ≤ 200 MB; 1m ≤ 6000 ms and ≤ 400 MB',
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
