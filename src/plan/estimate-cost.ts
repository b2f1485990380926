import type { MatrixValue } from '../manifest/types.js';
import type { Model } from '../service/types.js';
import type { CostAccount, CostOptions } from './classify-job.js';
import type { CostReport } from './cost-report.js';
import type { CostReportView } from './job-table.js';
import { createCostTally } from './cost-tally.js';
import { shownParamsJson } from './payload-diff.js';
import type { Plan } from './types.js';

/**
 * The cost report of a plan: credits per job (already in `PlannedJob.estimatedCredits`), per model,
 * per matrix axis value and in total; what this run needs after the subscription's image allowance;
 * and a verdict against the manifest budget and the available credit. Pure.
 *
 * Worst case: failed jobs are not charged (api-notes) and only GENERATION_TIMEOUT / QUOTA_EXHAUSTED
 * are retried, so retries add nothing and `credits.needed` is the expected worst case. The report
 * also gives `allAttemptsCharged` (`needed × maxAttempts`) as a conservative bound; verdicts use `needed`.
 * `createCostTally` computes the same report one job at a time.
 */
export function estimateCost(
  plan: Plan,
  catalog: readonly Model[],
  account: CostAccount,
  options: CostOptions,
): CostReport {
  return withJobList(estimateCostView(plan, catalog, account, options));
}

/** A report whose job list is an array (for a caller that keeps or edits the lines). */
export function withJobList(report: CostReportView): CostReport {
  return { ...report, jobList: [...report.jobList] };
}

/**
 * {@link estimateCost} with the job list kept as the tally's compact table (~20 bytes a job), each
 * line made when it is read: what apply holds through a run (a materialized list of 100,000 jobs was
 * ~60 MB of a resumed apply's live heap).
 */
export function estimateCostView(
  plan: Plan,
  catalog: readonly Model[],
  account: CostAccount,
  options: CostOptions,
): CostReportView {
  const tally = createCostTally(catalog, options, matrixValuesOfPlan(plan));
  // Only the fields the tally reads: spreading whole planned jobs (params, sources) cost ~0.3 s at 100,000.
  plan.jobs.forEach((job, ref) => {
    tally.add({
      id: job.id,
      kind: job.kind,
      model: job.model,
      estimatedCredits: job.estimatedCredits,
      payloadHash: job.payloadHash,
      payload: job,
      matrixValues: job.source.matrixValues,
      ref,
      ...(options.diffData !== undefined
        ? {
            shown: {
              payloadHash: job.payloadHash,
              prompt: job.prompt,
              paramsJson: shownParamsJson(job.params),
            },
          }
        : {}),
    });
  });
  return tally.finish(plan, account);
}

/**
 * How the report's job list reads a job's matrix values back. Made outside {@link estimateCostView}:
 * a closure there would share its scope, and so keep the tally's inputs (the previous state's summary
 * of every job) alive as long as the report.
 */
function matrixValuesOfPlan(plan: Plan): (ref: number) => Record<string, MatrixValue> {
  return (ref) => plan.jobs[ref]!.source.matrixValues;
}
