import type { PlannedJob } from '../manifest/planned-job.js';
import type { ChargeSource } from '../service/types.js';
import type { ExecutionContext } from './context.js';

/** The cost fields of a create answer or a polled job. */
interface ReportedCost {
  jobId: string;
  creditCost?: number;
  chargeSource?: ChargeSource;
}

/**
 * The answer as the executor counts it: a job the answer says was charged to credits (not to the
 * subscription) is counted at no less than its estimate, the catalog's price (issue #32.1). A service
 * that reports `creditCost 0` while charging 4 a job made "Credits spent: 0", let a plan say a
 * replacement fits, and let a cap of 10 end at 16 charged. A job the subscription covered, or an
 * answer without `chargeSource`, is counted as reported. `raisedFrom` is the figure reported, when
 * it was raised.
 */
export function countReportedCost<T extends ReportedCost>(
  answer: T,
  estimate: number,
): { answer: T; raisedFrom?: number } {
  const reported = answer.creditCost;
  if (reported === undefined || answer.chargeSource !== 'Credit' || reported >= estimate) return { answer };
  return { answer: { ...answer, creditCost: estimate }, raisedFrom: reported };
}

/** Says that a reported cost was raised to the job's estimate (`countReportedCost`). */
export function warnRaisedCost(
  ctx: ExecutionContext,
  job: Pick<PlannedJob, 'id' | 'estimatedCredits'>,
  jobId: string,
  raisedFrom: number,
): void {
  ctx.emit({
    type: 'warning',
    id: job.id,
    message: `The service reported creditCost ${raisedFrom} for job ${job.id} (${jobId}), charged to credits, below the catalog's price; it is counted at its estimate of ${job.estimatedCredits} credits. Compare the account's balance.`,
  });
}
