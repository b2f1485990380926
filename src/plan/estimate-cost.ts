import type { Model } from '../service/types.js';
import type { CostAccount, CostOptions } from './classify-job.js';
import type { CostReport } from './cost-report.js';
import { createCostTally, type TallyJob } from './cost-tally.js';
import { legacyPayloadHash } from './payload-hash.js';
import type { Plan } from './types.js';

export { classifyJob, type CostAccount, type CostOptions, type PreviousJobState } from './classify-job.js';

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
  const tally = createCostTally(catalog, options, (ref) => plan.jobs[ref]!.source.matrixValues);
  // Only the fields the tally reads: spreading whole planned jobs (params, sources) cost ~0.3 s at 100,000.
  plan.jobs.forEach((job, ref) => {
    const row: TallyJob = {
      id: job.id,
      kind: job.kind,
      model: job.model,
      estimatedCredits: job.estimatedCredits,
      payloadHash: job.payloadHash,
      matrixValues: job.source.matrixValues,
      ref,
    };
    // The legacy hash only where the state's hash is not the job's identity hash (see payload-hash.ts).
    const previous = options.previous?.get(job.id);
    if (previous !== undefined && previous.payloadHash !== job.payloadHash) {
      row.legacyPayloadHash = legacyPayloadHash(job);
    }
    tally.add(row);
  });
  const report = tally.finish(plan, account);
  return { ...report, jobList: [...report.jobList] };
}
