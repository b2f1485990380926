/**
 * Benchmark: expanding, validating and costing a 100,000-job manifest, the same line `runner plan`
 * runs (validateManifestOffline → validateJobsAgainstCatalog → buildPlan → estimateCost), timed per
 * stage in-process, then the whole CLI once as a child process. Goal (reported, never enforced):
 * in-process total < 2 s and < 300 MB peak RSS.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalog } from '../dist/catalog/load-catalog.js';
import { createFileInfoReader } from '../dist/catalog/read-file-info.js';
import { validateJobsAgainstCatalog } from '../dist/catalog/validate-job.js';
import { collapseIssues } from '../dist/manifest/collapse-issues.js';
import { sortIssues } from '../dist/manifest/sort-issues.js';
import { validateManifestOffline } from '../dist/manifest/validate-manifest.js';
import { buildPlan } from '../dist/plan/build-plan.js';
import { estimateCost } from '../dist/plan/estimate-cost.js';
import { emitResult, fetchSimulatorCatalog, note, round, timeIt, runnerBin } from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PRODUCTS = 100;
const VARIANTS = 1000;
const MAX_JOBS = 200_000;
/** Preloaded into the CLI child: reports its peak RSS on stderr at exit (the CLI itself is untouched). */
const REPORT_RSS_AT_EXIT =
  'data:text/javascript,process.on("exit",()=>process.stderr.write("\\nBENCH_MAXRSS_KIB="+process.resourceUsage().maxRSS+"\\n"))';

/** Runs the CLI, counting (not keeping) its stdout so the parent's memory stays out of the figure. */
function runCli(args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdoutBytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdoutBytes += chunk.length));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const match = /BENCH_MAXRSS_KIB=(\d+)/.exec(stderr);
      resolve({
        code,
        stdoutBytes,
        stderr: stderr.replace(/\n?BENCH_MAXRSS_KIB=\d+\n?/, ''),
        ...(match ? { maxRssKiB: Number(match[1]) } : {}),
      });
    });
  });
}

/** A 100 × 1000 matrix of image jobs with templated ids, prompts and params, and one local reference. */
function renderManifest() {
  const products = Array.from({ length: PRODUCTS }, (_, i) => `product-${String(i).padStart(3, '0')}`);
  const variants = Array.from({ length: VARIANTS }, (_, i) => i + 1);
  return [
    'version: 1',
    'name: bench-100k',
    'defaults:',
    '  kind: image',
    '  model: chatgpt-image-sangtao',
    '  params: { format: png }',
    'vars:',
    '  brand: Acme Coffee',
    'retry:',
    '  maxAttempts: 3',
    'jobs:',
    "  - id: '{{ product }}-v{{ variant }}'",
    '    matrix:',
    `      product: [${products.join(', ')}]`,
    `      variant: [${variants.join(', ')}]`,
    '    prompt: >-',
    '      A watercolor advertisement of {{ product }} from {{ brand }}, variant {{ variant }},',
    '      on a wooden table in soft morning light, made on {{ date }}',
    '    params:',
    "      aspectRatio: '16:9'",
    '      resolution: 1K',
    '      referenceImages: [./logo.png]',
    '',
  ].join('\n');
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'runner-bench-plan-'));
  try {
    const manifestFile = join(dir, 'bench-100k.yaml');
    const catalogFile = join(dir, 'catalog.json');
    await writeFile(manifestFile, renderManifest());
    await copyFile(join(ROOT, 'pipelines/assets/logo.png'), join(dir, 'logo.png'));
    await writeFile(catalogFile, JSON.stringify(await fetchSimulatorCatalog(), null, 2));
    note('manifest and catalog written');

    const date = new Date().toISOString().slice(0, 10);
    const stages = {};
    const total = await timeIt(async () => {
      const one = await timeIt(() =>
        validateManifestOffline(manifestFile, { env: process.env, date, maxJobs: MAX_JOBS }),
      );
      stages.expandMs = one.ms;
      const { loaded, jobs } = one.value;
      if (loaded === undefined || jobs.length === 0) {
        throw new Error(`stage one failed: ${JSON.stringify(one.value.issues.slice(0, 3))}`);
      }
      const catalog = await timeIt(() => loadCatalog(catalogFile));
      stages.loadCatalogMs = catalog.ms;
      const two = await timeIt(() =>
        validateJobsAgainstCatalog(jobs, catalog.value, {
          locate: (path) => loaded.locate(path),
          manifestDir: loaded.dir,
          fileInfo: createFileInfoReader(),
        }),
      );
      stages.validateCatalogMs = two.ms;
      const sorted = await timeIt(() =>
        collapseIssues(sortIssues([...one.value.issues, ...two.value.issues])),
      );
      stages.sortIssuesMs = sorted.ms;
      if (sorted.value.some((issue) => issue.severity === 'error')) {
        throw new Error(`validation errors: ${JSON.stringify(sorted.value.slice(0, 3))}`);
      }
      const plan = await timeIt(() =>
        buildPlan({ loaded, planned: two.value.planned, warnings: sorted.value }),
      );
      stages.buildPlanMs = plan.ms;
      const cost = await timeIt(() =>
        estimateCost(
          plan.value,
          catalog.value,
          {
            balance: {
              freeCredit: 100,
              purchasedCredit: 1_000_000,
              lockedCredit: 0,
              availableCredit: 1_000_100,
              hasPurchased: true,
            },
            subscription: { tier: 'Pro', quotas: [{ capability: 'image', remaining: 500 }] },
          },
          { maxAttempts: 3 },
        ),
      );
      stages.estimateCostMs = cost.ms;
      return {
        issues: sorted.value.length,
        jobs: plan.value.jobs.length,
        credits: cost.value.credits.needed,
        verdict: cost.value.verdict.status,
      };
    });
    const pipelineMaxRssKiB = process.resourceUsage().maxRSS;
    note(
      `in-process: ${total.value.jobs} jobs in ${total.ms} ms, peak RSS ${round(pipelineMaxRssKiB / 1024)} MB`,
    );

    const cliArgs = [
      '--import',
      REPORT_RSS_AT_EXIT,
      runnerBin(),
      'plan',
      manifestFile,
      '--catalog',
      catalogFile,
      '--offline',
      '--format',
      'json',
      '--max-jobs',
      String(MAX_JOBS),
    ];
    const cli = await timeIt(() => runCli(cliArgs, dir));
    note(`cli: ${cli.ms} ms (${cli.value.ok ? 'ok' : `exit ${cli.value.code}`})`);

    emitResult('plan-100k', {
      jobs: total.value.jobs,
      issues: total.value.issues,
      ...stages,
      totalMs: total.ms,
      creditsNeeded: total.value.credits,
      verdict: total.value.verdict,
      pipelineMaxRssMB: round(pipelineMaxRssKiB / 1024),
      cliMs: cli.ms,
      cliExitCode: cli.value.code,
      cliReportMB: round(cli.value.stdoutBytes / 1024 / 1024),
      ...(cli.value.maxRssKiB === undefined ? {} : { cliMaxRssMB: round(cli.value.maxRssKiB / 1024) }),
      ...(cli.value.code === 0 ? {} : { cliStderr: cli.value.stderr.slice(0, 500) }),
      goal: 'total < 2000 ms, maxRSS < 300 MB',
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
