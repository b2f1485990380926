import { RunnerError } from '../errors.js';
import type { CostReportView } from '../plan/job-table.js';
import { renderReportText } from '../plan/render-report.js';
import { planIdentity } from '../plan/plan-identity.js';
import type { CommandContext } from './context.js';
import { checkCost, DEFAULT_MAX_ATTEMPTS } from './cost-check.js';
import { isRecordedOutputHere } from './apply-options.js';
import { checkRunOutputDir } from './check-output-dir.js';
import { recordedOutputDir, recordedOutputHost } from '../state/index.js';
import type { ServiceConnection } from './connection.js';
import { refuseStalePlan } from './saved-plan-io.js';
import { replacementsStillDue } from '../plan/saved-plan.js';
import { dueReplacements } from './replace-from-options.js';
import { addTargetingToReport, describeLeftOut } from '../plan/targeting-report.js';
import type { ApplyView } from './apply-effects.js';
import {
  preflightRun,
  reportInvalid,
  type AuthorizedRun,
  type PlannedRun,
  type Stopped,
} from './apply-phases.js';

/**
 * Apply's phase 4 (./apply.ts): the output checked, the replacements still due, the plan other machines
 * run, then (unless `--download-only`) the cost and the person's yes.
 */
export async function authorize(
  planned: PlannedRun,
  connection: ServiceConnection,
  view: ApplyView,
): Promise<AuthorizedRun | Stopped> {
  const { ctx, saved, manifestFile, options, state, prepared, simulated } = planned;
  const recorded = recordedOutputDir(state.runs);
  const outputs = await checkRunOutputDir(ctx, options.output, {
    ...preflightRun(manifestFile, options.runId, prepared, simulated, recorded, {
      recordedHere: isRecordedOutputHere(recorded, recordedOutputHost(state.runs), ctx.env),
    }),
    stateDir: state.dir,
    runStart: state.runs[0]?.at,
    store: planned.store,
    location: planned.location,
    preflighted: planned.peekedOutputDir,
  });
  let { targeting } = options;
  // A saved plan's --replace is done once: applying the same plan again must not pay again.
  if (saved !== undefined) {
    const replace = replacementsStillDue(saved, (id) => state.jobs.get(id)?.attempts.length ?? 0);
    targeting = { ...targeting, replace };
  }
  // --replace-from: a rejected job already re-generated (a later attempt exists) is not paid again.
  const due = dueReplacements(prepared.rejections, state.jobs);
  if (due !== undefined) {
    if (due.issues.length > 0)
      return { outcome: reportInvalid(ctx, view, { ok: false, issues: due.issues }, manifestFile) };
    for (const note of due.notes) ctx.output.err(note);
    targeting = { ...targeting, replace: due.replace };
  }
  // Several machines on one run (PostgreSQL): one running another plan, or the same plan with
  // another cap, replacements or re-sends (#31.8), refuses this one here.
  const caps = [options.maxCredits, prepared.plan.budget].filter((cap): cap is number => cap !== undefined);
  // Runs of one account on this state share its open-job slots and its 429 pauses (#31.5).
  await state.coordination?.join(
    planIdentity(prepared.plan, {
      maxCredits: caps.length === 0 ? undefined : Math.min(...caps),
      replace: targeting.replace ?? [],
      retryFailed: options.retryFailed,
      resendUncertain: options.resendUncertain,
    }),
    connection.account,
  );
  const sharedPause = state.coordination?.sharedRateLimit();
  if (sharedPause !== undefined) connection.client.shareRateLimit?.(sharedPause);
  const authorized = { ...planned, outputs, targeting, due };
  // --download-only creates and pays nothing: no cost check, nothing to confirm.
  if (options.downloadOnly) return authorized;
  // Declining is not success (Terraform exits 1 too): a script must not read "nothing applied" as done.
  return (await checkCostAndConfirm(authorized, connection)) ? authorized : { outcome: 'declined' };
}

/**
 * The cost against the budget, the credit and `--max-credits` (exit 3 when over: ./cost-check.ts gives
 * the verdict `runner plan` gives), then the question on a terminal. False when the person declined.
 */
async function checkCostAndConfirm(run: AuthorizedRun, connection: ServiceConnection): Promise<boolean> {
  const { ctx, saved, target, manifestFile, options, state, prepared, targeting } = run;
  const { maxCredits } = options;
  const costed = await checkCost({
    plan: prepared.plan,
    catalog: prepared.catalog,
    maxAttempts: prepared.loaded.manifest.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    client: connection.client,
    previousJobs: state.jobs,
    ...(targeting.replace === undefined ? {} : { replace: targeting.replace }),
    retryFailed: options.retryFailed,
    resendUncertain: options.resendUncertain,
    ...(maxCredits === undefined ? {} : { maxCredits }),
  });
  const report = addTargetingToReport(costed, targeting, prepared.leftOut);
  if (saved !== undefined) {
    const settled = refuseStalePlan(target, saved, {
      jobs: report.jobList,
      stateDir: state.dir,
      planAgain: run.rerun('plan', manifestFile, options.repeat, ['--out-plan', target]),
    });
    if (settled !== undefined) ctx.output.err(settled);
  }
  const leftOut = describeLeftOut(report);
  if (leftOut !== undefined && (!ctx.canPrompt || options.yes)) ctx.output.err(leftOut);
  refuseOverspending(ctx, report, manifestFile);
  return confirmApply(ctx, report, manifestFile, options.yes);
}

/**
 * Over the budget, the available credit or --max-credits: exit 3 before any job exists. The verdict is
 * the one `runner plan` gives for the same state and flags (./cost-check.ts).
 */
function refuseOverspending(ctx: CommandContext, report: CostReportView, manifestFile: string): void {
  if (report.verdict.status !== 'fits') {
    ctx.output.err(renderReportText(report, { color: ctx.output.color, width: ctx.output.width }));
    const overBudget = report.verdict.status === 'over-budget';
    throw new RunnerError(
      overBudget ? 'OVER_BUDGET' : 'INSUFFICIENT_CREDITS',
      `Not applying ${manifestFile}: ${report.verdict.message}. No job was created.`,
      { hint: overBudget ? overBudgetHint(report) : 'Top up before retrying.' },
    );
  }
}

/**
 * What to change when over a cap: the cap that binds. `--max-credits` can only lower the manifest's
 * `budget` (the lower one applies), so raising it past the budget would do nothing.
 */
function overBudgetHint(report: CostReportView): string {
  const fewer = 'or run fewer jobs (--only / --exclude, or trim the matrix).';
  const { budget, maxCredits } = report;
  if (maxCredits !== undefined && (budget === undefined || maxCredits < budget))
    return `Pass a higher --max-credits${budget === undefined ? '' : ` (up to the manifest's budget of ${budget})`}, ${fewer}`;
  return `Raise \`budget\` in the manifest, ${fewer}`;
}

/** On a terminal, shows the plan and asks (unless --yes); without one (CI), says what it starts. */
async function confirmApply(
  ctx: CommandContext,
  report: CostReportView,
  manifestFile: string,
  yes: boolean,
): Promise<boolean> {
  if (!ctx.canPrompt || yes) {
    ctx.output.err(
      `Applying ${manifestFile}: ${report.jobs.toRun} of ${report.jobs.total} jobs to run; ${report.verdict.message}.`,
    );
    return true;
  }
  ctx.output.err(renderReportText(report, { color: ctx.output.color, width: ctx.output.width }));
  const confirmed = await ctx.confirm(
    `Apply ${report.jobs.toRun} jobs for up to ${report.credits.needed} credits?`,
  );
  if (!confirmed) ctx.output.err('Nothing was applied.');
  return confirmed;
}
