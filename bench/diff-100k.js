/**
 * Benchmark (issue #18; goal, reported, never enforced): `runner diff` of two 100,000-job plans in
 * ≤ 2 s. The plans are written once by the real CLI (`runner plan <file> --offline --catalog
 * <catalog.json> --format json --out …`) from the plan-scale manifest (100 products × 100 styles × 10
 * variants, templated ids and prompts, one local reference image) and two heads: "some" (product p0
 * replaced by p100: 1,000 jobs removed and 1,000 added; style s0 at resolution 2K: 990 changed) and
 * "all" (every job at resolution 2K: 100,000 changed, the worst case for the job lists). Then
 * `runner diff base.json head.json` runs in fresh child processes, 3 times per head and format (text
 * and JSON, stdout on /dev/null): min and median wall time (spawn to exit) and the child's peak RSS.
 *
 *   node bench/diff-100k.js
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { copyFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { emitResult, fetchSimulatorCatalog, median, note, round, runnerBin } from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const REPORT_RSS_AT_EXIT =
  'data:text/javascript,process.on("exit",()=>process.stderr.write("\\nBENCH_MAXRSS_KIB="+process.resourceUsage().maxRSS+"\\n"))';

const values = (from, count, prefix) =>
  Array.from({ length: count }, (_, i) => `${prefix}${from + i}`).join(', ');

/** One matrix entry of the plan-scale manifest: products, styles and its resolution. */
function entry(products, styles, resolution) {
  return [
    "  - id: '{{ product }}-{{ style }}-v{{ variant }}'",
    '    matrix:',
    `      product: [${products}]`,
    `      style: [${styles}]`,
    `      variant: [${values(0, 10, '')}]`,
    '    prompt: >-',
    '      A watercolor advertisement of {{ product }} from {{ brand }} in {{ style }} style,',
    '      variant {{ variant }}, on a wooden table in soft morning light',
    '    params:',
    "      aspectRatio: '16:9'",
    `      resolution: ${resolution}`,
    '      referenceImages: [./logo.png]',
  ];
}

function manifest(entries) {
  return [
    'version: 1',
    'name: plan-scale',
    'schedule: nightly',
    'defaults:',
    '  kind: image',
    '  model: chatgpt-image-sangtao',
    '  params: { format: png }',
    'vars:',
    '  brand: Acme Coffee',
    'jobs:',
    ...entries.flat(),
    '',
  ].join('\n');
}

function run(args, cwd, stdout = '/dev/null') {
  return new Promise((resolve, reject) => {
    const out = openSync(stdout, 'w');
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', out, 'pipe'] });
    closeSync(out);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const match = /BENCH_MAXRSS_KIB=(\d+)/.exec(stderr);
      resolve({
        code,
        ms: performance.now() - started,
        rssMB: match ? Number(match[1]) / 1024 : undefined,
        stderr,
      });
    });
  });
}

async function main() {
  // BENCH_KEEP_DIR=/some/dir keeps the plans there, to profile the diff on them.
  const kept = process.env.BENCH_KEEP_DIR;
  const dir = kept ?? (await mkdtemp(join(tmpdir(), 'runner-bench-diff-')));
  try {
    const catalog = join(dir, 'catalog.json');
    await writeFile(catalog, JSON.stringify(await fetchSimulatorCatalog(), null, 2));
    await copyFile(join(ROOT, 'pipelines/assets/logo.png'), join(dir, 'logo.png'));
    const sides = {
      base: manifest([entry(values(0, 100, 'p'), values(0, 100, 's'), '1K')]),
      some: manifest([
        entry(values(1, 100, 'p'), values(1, 99, 's'), '1K'),
        entry(values(1, 100, 'p'), 's0', '2K'),
      ]),
      all: manifest([entry(values(0, 100, 'p'), values(0, 100, 's'), '2K')]),
    };
    const results = {};
    for (const [name, text] of Object.entries(sides)) {
      // One manifest path for every side, as a pull request's base and head have.
      const side = join(dir, name);
      await rm(side, { recursive: true, force: true });
      await writeFile(join(dir, 'plan.yaml'), text);
      const result = await run(
        [
          runnerBin(),
          'plan',
          'plan.yaml',
          '--offline',
          '--catalog',
          catalog,
          '--format',
          'json',
          '--max-jobs',
          '200000',
        ],
        dir,
        join(dir, `${name}.json`),
      );
      if (result.code !== 0)
        throw new Error(`plan ${name}: exit ${result.code}: ${result.stderr.slice(0, 300)}`);
      results[`${name}PlanMB`] = round((await stat(join(dir, `${name}.json`))).size / 1e6);
    }
    if (process.env.BENCH_PLANS_ONLY === '1') return;
    for (const head of ['some', 'all']) {
      for (const format of ['text', 'json']) {
        const times = [];
        const rss = [];
        for (let i = 0; i < RUNS; i++) {
          const result = await run(
            [
              '--import',
              REPORT_RSS_AT_EXIT,
              runnerBin(),
              'diff',
              'base.json',
              `${head}.json`,
              '--format',
              format,
            ],
            dir,
          );
          if (result.code !== 0)
            throw new Error(`diff ${head}: exit ${result.code}: ${result.stderr.slice(0, 300)}`);
          times.push(result.ms);
          if (result.rssMB !== undefined) rss.push(result.rssMB);
        }
        const key = `${head}.${format}`;
        results[`${key}.minMs`] = round(Math.min(...times), 0);
        results[`${key}.medianMs`] = round(median(times), 0);
        results[`${key}.maxRssMB`] = round(Math.max(...rss));
        note(`${key}: ${JSON.stringify(times.map((t) => round(t, 0)))} ms`);
      }
    }
    emitResult('diff-100k', { ...results, runs: RUNS, goal: 'diff of two 100k-job plans ≤ 2000 ms' });
  } finally {
    if (kept === undefined) await rm(dir, { recursive: true, force: true });
  }
}

await main();
