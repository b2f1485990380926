import { once } from 'node:events';
import { access, appendFile, open, readdir, readFile } from 'node:fs/promises';

import { PRIVATE_FILE_MODE } from '../file-modes.js';
import { explainLinkError, WRITE_NO_FOLLOW } from '../no-follow.js';
import { diffSides, readSide } from './diff.js';
import { expandManifestArgs, planManifests, sumPlans, type PlannedManifest } from './plan-set.js';
import type { CostDiff } from '../diff/cost-diff.js';
import { planFromReport } from '../diff/plan-document.js';
import { formatCredits } from '../plan/credits.js';
import type { CostReportView } from '../plan/job-table.js';
import { loadManifest } from '../manifest/load-manifest.js';
import { renderPlanSetJsonChunks } from '../plan/render-plan-set-json.js';
import { renderReportMarkdown, renderReportSummary, renderReportText } from '../plan/render-report.js';
import type { Model } from '../service/types.js';
import { createStyle } from '../text-style.js';
import type { CommandContext } from './context.js';
import { planByStreaming } from './plan-stream.js';
import type { DiffDataOptions } from './catalog-origin.js';
import { refuseSavedPlanAsManifest } from './saved-plan-io.js';
import type { PlanEffects, PlanFormat } from './plan.js';
import type { Outcome } from './outcome.js';
import type { RunPlanOptions } from './run-plan-options.js';
import type { GuardrailLimits } from '../diff/guardrails.js';

/** What planning several manifests needs from outside: plan's, and how a diff is shown (`--compare-to`). */
export interface PlanManyEffects extends PlanEffects {
  /** Prints (and writes to `--out`) the diff in the format asked for; the CLI checked that format. */
  emitDiff: (diff: CostDiff, files: { base: string; head: string }) => Promise<void>;
}

/** What `runner plan a.yaml b.yaml` / a glob / `--compare-to` is asked (the CLI checked each flag). */
export interface PlanManyOptions extends RunPlanOptions {
  /** `--compare-to BASE`: print the cost diff against this plan report instead of the reports. */
  compareTo?: string;
  /** `--fail-on-increase` / `--fail-on-increase-percent` (with `compareTo`). */
  limits: GuardrailLimits;
  /** The plan set's format (without `compareTo`; the diff's is the CLI's, in `emitDiff`). */
  format: PlanFormat;
  /** `--out FILE`: also write the plan set there. */
  out?: string;
  /** `--offline`: no service (needs `--catalog`). */
  offline: boolean;
  /** `--allow-empty`: a glob matching nothing (or a missing named manifest) is a side with no manifests. */
  allowEmpty: boolean;
  /** `--catalog-fallback FILE`: the catalog to price with when the `--catalog` file does not exist. */
  catalogFallback?: string;
  /** `--format json` or `--compare-to`: keep the parts `runner diff` reads in each report. */
  diffData: boolean;
}

/**
 * `runner plan a.yaml b.yaml` / `'pipelines/*.yaml'` / `--compare-to base.json`: each manifest planned
 * as `runner plan FILE` plans it (streamed), then either one report of each and their sum (JSON: one
 * `runner-plan-set` document), or with `--compare-to` the cost diff against the base report. Exit 2
 * when a manifest is invalid (each one's issues are printed), 3 when a plan does not fit or a
 * `--fail-on-increase*` limit is crossed.
 */
export async function runPlanMany(
  ctx: CommandContext,
  args: string[],
  options: PlanManyOptions,
  effects: PlanManyEffects,
): Promise<Outcome> {
  const { compareTo, limits, format, offline } = options;
  const { files, unmatched } = await expandManifestArgs(args, {
    readdir: (dir) => readdir(dir),
    exists: (file) =>
      access(file).then(
        () => true,
        () => false,
      ),
    allowEmpty: options.allowEmpty,
  });
  for (const arg of unmatched) {
    ctx.output.err(`note: ${arg}: no manifest here; planned as a side without it (--allow-empty)`);
  }
  for (const file of files) await refuseSavedPlanAsManifest(file, 'plan');
  const planOptions = files.length === 0 ? options : await withCatalogFallback(ctx, options);
  // The base is read before anything is asked of the service: a wrong file fails at once.
  const base =
    compareTo === undefined ? undefined : await readSide(compareTo, (file) => readFile(file, 'utf8'));

  const connection = offline ? undefined : await effects.connect(ctx);
  try {
    let catalog: Promise<Model[]> | undefined;
    const fetchCatalog = () => {
      if (connection === undefined) throw new Error('offline plan without a catalog');
      catalog ??= connection.client.listModels();
      return catalog;
    };
    const planned = await planManifests(files, async (file): Promise<PlannedManifest> => {
      const outcome = await planByStreaming(ctx, file, planOptions, fetchCatalog, connection?.client);
      if (outcome.ok === true) return { file, ok: true, report: outcome.report };
      if (outcome.ok === false) return { file, ok: false, issues: outcome.issues };
      // A manifest that does not load: its issues, as `runner plan FILE` reports them.
      return { file, ok: false, issues: (await loadManifest(file)).issues };
    });
    const invalid = planned.filter((one) => !one.ok);
    if (invalid.length > 0) {
      for (const one of invalid) {
        if (one.ok) continue;
        for (const line of effects.view.annotations(one.issues, one.file, ctx.env)) ctx.output.err(line);
        ctx.output.err(effects.view.issues(one.issues, one.file, ctx.output.style));
      }
      return 'invalid-input';
    }
    const reports = planned.flatMap((one) => (one.ok ? [one.report] : []));
    const verdict = reports.every((report) => report.verdict.status === 'fits') ? 'done' : 'over-limit';
    if (base !== undefined) {
      const head = { file: '(planned now)', plans: reports.map(planFromReport) };
      const { diff, outcome } = diffSides(base, head, limits);
      await effects.emitDiff(diff, { base: base.file, head: files.join(' ') });
      // Both exit 3: a crossed limit is named first, as the diff printed shows it.
      return outcome === 'done' ? verdict : outcome;
    }
    await emitPlanSet(ctx, reports, format, options.out);
    return verdict;
  } finally {
    await connection?.close();
  }
}

/**
 * `--catalog-fallback`: when the `--catalog` file does not exist in this tree (the base commit of the
 * pull request that commits the first `catalog.json`), the fallback prices the plans, and each report
 * records the file it stood in for (`catalog.fallbackFor`), so the diff says so.
 */
async function withCatalogFallback(
  ctx: CommandContext,
  options: PlanManyOptions,
): Promise<PlanManyOptions & DiffDataOptions> {
  const { catalogFile, catalogFallback } = options;
  if (catalogFile === undefined || catalogFallback === undefined) return options;
  const missing = await access(catalogFile).then(
    () => false,
    (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
  );
  if (!missing) return options;
  ctx.output.err(
    `note: ${catalogFile} does not exist here; priced with ${catalogFallback} (--catalog-fallback)`,
  );
  return { ...options, catalogFile: catalogFallback, catalogFallbackFor: catalogFile };
}

async function emitPlanSet(
  ctx: CommandContext,
  reports: CostReportView[],
  format: string,
  outFile: string | undefined,
): Promise<void> {
  const sum = sumPlans(reports);
  const chunks =
    format === 'json'
      ? renderPlanSetJsonChunks(reports, sum)
      : [renderSetText(reports, sum, format, { color: ctx.output.color, width: ctx.output.width })];
  const file = outFile === undefined ? undefined : await openOut(outFile);
  // With --out the JSON goes to the file only (#33.6): a terminal or a CI log gets the summary.
  const jsonToFile = format === 'json' && file !== undefined;
  for (const chunk of chunks) {
    if (!jsonToFile) await ctx.output.write(chunk);
    // A file gets the text without colors.
    const written =
      format === 'text' && ctx.output.color
        ? renderSetText(reports, sum, format, { color: false, width: 100 })
        : chunk;
    if (file !== undefined && !file.write(written)) await once(file, 'drain');
  }
  if (format === 'json' && !jsonToFile) await ctx.output.write('\n');
  if (file !== undefined) {
    await new Promise<void>((resolve, reject) =>
      file.end(format === 'json' ? '\n' : '', () => resolve()).on('error', reject),
    );
  }
  if (jsonToFile) {
    const each = reports.map((report) => renderReportSummary(report).split('\n')[0] ?? '');
    ctx.output.out([...each, setTotalLine(reports, sum), `The JSON plan set is in ${outFile}.`].join('\n'));
  }
  const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
  if (summaryFile !== undefined && summaryFile !== '') {
    await appendFile(
      summaryFile,
      `${renderSetText(reports, sum, 'markdown', { color: false, width: 100 })}\n`,
      {
        mode: PRIVATE_FILE_MODE,
      },
    );
  }
}

/** Each manifest's report (text or markdown), then the sum. */
function renderSetText(
  reports: CostReportView[],
  sum: { credits: number; creditsPerMonth: number | null },
  format: string,
  { color, width }: { color: boolean; width: number },
): string {
  const parts = reports.map((report) =>
    format === 'markdown' ? renderReportMarkdown(report) : renderReportText(report, { color, width }),
  );
  const total = setTotalLine(reports, sum);
  parts.push(format === 'markdown' ? `**${total}**\n` : `${createStyle(color).bold(total)}\n`);
  return parts.map((part) => (part.endsWith('\n') ? part : `${part}\n`)).join('\n');
}

/** `Total of 2 manifests: 62 credits per run; 1,548 credits per month (manifests with a schedule)`. */
function setTotalLine(
  reports: readonly CostReportView[],
  sum: { credits: number; creditsPerMonth: number | null },
): string {
  const monthly =
    sum.creditsPerMonth === null
      ? ''
      : `; ${formatCredits(sum.creditsPerMonth)} credits per month (manifests with a schedule)`;
  return `Total of ${reports.length} manifests: ${formatCredits(sum.credits)} credits per run${monthly}`;
}

async function openOut(outFile: string) {
  const handle = await open(outFile, WRITE_NO_FOLLOW, PRIVATE_FILE_MODE).catch((error: unknown) => {
    throw explainLinkError(error, '--out', outFile);
  });
  return handle.createWriteStream();
}
