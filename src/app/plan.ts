import { once } from 'node:events';
import { appendFile, open, writeFile } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../file-modes.js';
import { explainLinkError, WRITE_NO_FOLLOW } from '../no-follow.js';
import type { ValidationIssue } from '../manifest/types.js';
import type { CostReportView } from '../plan/job-table.js';
import { withJobList } from '../plan/estimate-cost.js';
import { planByStreaming, type StreamedPlanOutcome } from './plan-stream.js';
import { renderReportJsonChunks } from '../plan/render-report-json.js';
import { utf8Batches } from '../utf8-batches.js';
import { renderReportMarkdown, renderReportSummary, renderReportText } from '../plan/render-report.js';
import { readStoredRun } from '../state/index.js';
import type { ServiceConnection } from './connection.js';
import type { CommandContext } from './context.js';
import { checkCost, DEFAULT_MAX_ATTEMPTS } from './cost-check.js';
import type { Outcome } from './outcome.js';
import { preparePlan, toPrepareOptions, type PrepareOptions } from './prepare-plan.js';
import { peekRunDate, runDateOf } from './run-date.js';
import { preflightTargets, type WriteTarget } from './preflight.js';
import type { Style } from '../text-style.js';
import { addPayloadsToReport, type ShowOption } from './plan-show.js';
import { savePlanIfAsked } from './save-plan.js';
import { refuseSavedPlanAsManifest } from './saved-plan-io.js';
import { dueReplacements, readReplaceFrom } from './replace-from-options.js';
import { addChangesToReport, addTargetingToReport } from '../plan/targeting-report.js';
import { diffDataOption } from './catalog-origin.js';
import type { RunPlanOptions } from './run-plan-options.js';

/** What plan needs from outside, passed in by the CLI (src/cli/commands/plan.ts). */
export interface PlanEffects {
  /** Opens the service (src/cli/effects/connect.ts); not called with `--offline`. */
  connect: (ctx: CommandContext) => Promise<ServiceConnection>;
  view: PlanView;
}

/** How the terminal shows a plan's problems (src/cli/render/). */
export interface PlanView {
  /** The manifest's problems, for stderr. */
  issues(issues: readonly ValidationIssue[], manifestFile: string, style: Style): string;
  /** Each problem as a CI annotation line (GitHub Actions' `::error file=…::`); none elsewhere. */
  annotations(issues: readonly ValidationIssue[], manifestFile: string, env: NodeJS.ProcessEnv): string[];
}

/** The formats of a plan report. */
export const PLAN_FORMATS = ['text', 'json', 'markdown'] as const;
export type PlanFormat = (typeof PLAN_FORMATS)[number];
type Format = PlanFormat;

/** What `runner plan FILE` is asked, besides what apply is asked too (RunPlanOptions). */
export interface PlanOptions extends RunPlanOptions {
  format: PlanFormat;
  /** `--out FILE`: also write the report there. */
  out?: string;
  /** `--out-plan FILE`: save the exact plan for `runner apply FILE`. */
  outPlan?: string;
  /** `--show payloads`. */
  show?: ShowOption;
  /** `--offline`: no service (needs `--catalog`; the balance is not checked). */
  offline: boolean;
  /** `--format json` or `--compare-to`: keep the parts `runner diff` reads in the report. */
  diffData: boolean;
}

/**
 * `runner plan FILE`: the dry-run cost report. Exit 0 when it fits, 3 when it needs more than the
 * available credit or the budget, 2 on invalid input. Creates nothing, spends nothing.
 */
export async function runPlan(
  ctx: CommandContext,
  manifestFile: string,
  options: PlanOptions,
  effects: PlanEffects,
): Promise<Outcome> {
  const { connect, view } = effects;
  const { format, show, offline, maxCredits } = options;
  await refuseSavedPlanAsManifest(manifestFile, 'plan');
  const replaceFrom = await readReplaceFrom(options, options.runId);
  if (replaceFrom.given && !replaceFrom.ok)
    return reportInvalid(ctx, view, replaceFrom.issues, replaceFrom.file);
  if (replaceFrom.given && replaceFrom.rejected === 0) {
    ctx.output.err('The decisions reject no job: nothing to re-generate.');
    return 'done';
  }
  await preflightTargets(planWriteTargets(ctx, options), ctx.cwd);
  const connection = offline ? undefined : await connect(ctx);
  try {
    const fetchCatalog = () => {
      if (connection === undefined) throw new Error('offline plan without a catalog');
      return connection.client.listModels();
    };
    // --show payloads and --out-plan need every payload at once; everything else streams.
    // So does --replace-from, which selects jobs by the decisions and then by the run's state.
    const needsPayloads = show === 'payloads' || options.outPlan !== undefined || replaceFrom.given;
    const streamed: StreamedPlanOutcome = needsPayloads
      ? { ok: 'whole-plan' }
      : await planByStreaming(ctx, manifestFile, options, fetchCatalog, connection?.client);
    if (streamed.ok !== 'whole-plan') {
      if (!streamed.ok) return reportInvalid(ctx, view, streamed.issues, manifestFile);
      annotate(ctx, view, streamed.issues, manifestFile);
      await emitReport(ctx, streamed.report, format, options.out);
      return streamed.report.verdict.status === 'fits' ? 'done' : 'over-limit';
    }
    const prepare = (date: PrepareOptions['date']) =>
      preparePlan(
        ctx,
        {
          ...toPrepareOptions(manifestFile, options, date),
          ...(replaceFrom.given ? { replaceFrom: replaceFrom.prepare } : {}),
        },
        fetchCatalog,
      );
    const where = { manifestFile, runId: options.runId, ...options.state };
    // Like apply: `{{ date }}` is the day the run started, so a resumed run keeps its jobs.
    const firstTry = await prepare((pipeline) => peekRunDate({ ...where, pipeline }));
    if (!firstTry.ok) return reportInvalid(ctx, view, firstTry.issues, manifestFile);
    const previous = (await readStoredRun({ ...where, pipeline: firstTry.loaded.manifest.name })).replay;
    const runDate = runDateOf(previous.runs);
    const prepared = runDate === firstTry.date ? firstTry : await prepare(runDate);
    if (!prepared.ok) return reportInvalid(ctx, view, prepared.issues, manifestFile);
    annotate(ctx, view, prepared.issues, manifestFile);
    const { manifest } = prepared.loaded;
    // --replace-from: as apply will see it, a job re-generated since its rejection is not priced again.
    let { targeting } = options;
    const due = dueReplacements(prepared.rejections, previous.jobs);
    if (due !== undefined) {
      if (due.issues.length > 0) return reportInvalid(ctx, view, due.issues, manifestFile);
      targeting = { ...targeting, replace: due.replace };
    }
    const stateJobs = previous.jobs;
    const costed = withJobList(
      await checkCost({
        plan: prepared.plan,
        catalog: prepared.catalog,
        maxAttempts: manifest.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        previousJobs: stateJobs,
        ...(targeting.replace === undefined ? {} : { replace: targeting.replace }),
        retryFailed: options.retryFailed,
        resendUncertain: options.resendUncertain,
        ...(maxCredits === undefined ? {} : { maxCredits }),
        ...(connection === undefined ? {} : { client: connection.client }),
        ...diffDataOption(ctx, options),
      }),
    );
    const targeted = addTargetingToReport(
      addChangesToReport(costed, prepared.plan, stateJobs),
      targeting,
      prepared.leftOut,
    );
    const report = addPayloadsToReport(
      due === undefined ? targeted : { ...targeted, notes: [...targeted.notes, ...due.notes] },
      show,
      prepared.plan,
    );
    await savePlanIfAsked(ctx, { ...options, targeting }, manifestFile, prepared, report, stateJobs);
    await emitReport(ctx, report, format, options.out);
    return report.verdict.status === 'fits' ? 'done' : 'over-limit';
  } finally {
    await connection?.close();
  }
}

/** `--log-file`, `--out` and GitHub's step summary file: checked before anything is asked of the service. */
function planWriteTargets(ctx: CommandContext, options: Pick<PlanOptions, 'out' | 'outPlan'>): WriteTarget[] {
  const targets: WriteTarget[] = [];
  if (ctx.global.logFile !== undefined) {
    targets.push({ path: ctx.global.logFile, kind: 'file', what: '--log-file', noLinks: true });
  }
  if (options.out !== undefined) {
    targets.push({ path: options.out, kind: 'file', what: '--out', noLinks: true });
  }
  if (options.outPlan !== undefined) {
    targets.push({ path: options.outPlan, kind: 'file', what: '--out-plan' });
  }
  const summary = ctx.env.GITHUB_STEP_SUMMARY;
  if (summary !== undefined && summary !== '') {
    targets.push({ path: summary, kind: 'file', what: 'GITHUB_STEP_SUMMARY' });
  }
  return targets;
}

function reportInvalid(
  ctx: CommandContext,
  view: PlanView,
  issues: ValidationIssue[],
  manifestFile: string,
): Outcome {
  annotate(ctx, view, issues, manifestFile);
  ctx.output.err(view.issues(issues, manifestFile, ctx.output.style));
  return 'invalid-input';
}

/** Under GitHub Actions, each issue also becomes an `::error file=…,line=…,col=…::` annotation. */
function annotate(
  ctx: CommandContext,
  view: PlanView,
  issues: ValidationIssue[],
  manifestFile: string,
): void {
  for (const line of view.annotations(issues, manifestFile, ctx.env)) ctx.output.err(line);
}

async function emitReport(
  ctx: CommandContext,
  report: CostReportView,
  format: Format,
  outFile: string | undefined,
) {
  const { output } = ctx;
  if (format === 'json') {
    // In pieces: a 100,000-job report is ~30 MB of JSON, and one string of it doubles peak memory.
    // With --out the JSON goes to the file only (#33.6): a terminal or a CI log gets the summary.
    // Encoded into ~1 MB batches: one write each, not one per piece (see utf8Batches).
    const file = outFile === undefined ? undefined : await openReportStream(outFile);
    for (const chunk of utf8Batches(renderReportJsonChunks(report))) {
      if (file === undefined) await output.write(chunk);
      else if (!file.write(chunk)) await once(file, 'drain');
    }
    if (file === undefined) await output.write('\n');
    else {
      await new Promise<void>((resolve, reject) => file.end('\n', () => resolve()).on('error', reject));
      output.out(`${renderReportSummary(report)}\nThe JSON report is in ${outFile}.`);
    }
  } else {
    const rendered =
      format === 'markdown'
        ? renderReportMarkdown(report)
        : renderReportText(report, { color: output.color, width: output.width });
    output.out(rendered);
    if (outFile !== undefined) {
      const plain = format === 'text' ? renderReportText(report, { color: false, width: 100 }) : rendered;
      await writeFile(outFile, plain.endsWith('\n') ? plain : `${plain}\n`, {
        mode: PRIVATE_FILE_MODE,
        flag: WRITE_NO_FOLLOW,
      }).catch((error: unknown) => {
        throw explainLinkError(error, '--out', outFile);
      });
    }
  }
  // GitHub Actions shows this file on the run's summary page.
  const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
  if (summaryFile !== undefined && summaryFile !== '') {
    // Private when the runner creates it (an existing file keeps its mode).
    await appendFile(summaryFile, `${renderReportMarkdown(report)}\n`, { mode: PRIVATE_FILE_MODE });
  }
}

/** `--out` for the JSON report, opened without following a link (the stream then writes to the fd). */
async function openReportStream(outFile: string) {
  const handle = await open(outFile, WRITE_NO_FOLLOW, PRIVATE_FILE_MODE).catch((error: unknown) => {
    throw explainLinkError(error, '--out', outFile);
  });
  return handle.createWriteStream();
}
