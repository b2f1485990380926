import type { PlannedJob } from '../manifest/planned-job.js';
import type { ChargeSource, JobRecord } from '../service/types.js';
import type { AttemptState } from '../state/index.js';
import type { ExecutionContext } from './context.js';

/** The cost fields a status record journals when a poll showed a charge not counted yet. */
export interface PolledCost {
  creditCost?: number;
  chargeSource?: ChargeSource;
}

/**
 * Attempt `attempt` of a job as the live state has it now (the attempt a caller read before polling
 * is a copy of an earlier state: a record journaled since is not in it).
 */
export function liveAttempt(ctx: ExecutionContext, id: string, attempt: number): AttemptState | undefined {
  return ctx.jobs.get(id)?.attempts.find((one) => one.attempt === attempt);
}

/**
 * Counts the cost a polled job reports as soon as it is known (issue #31.4): when a create's answer
 * carried only `jobId`, the job was counted at its estimate (0 for a model the catalog prices at 0),
 * and the charge arrives in the job's first poll. The budget is recounted at once and the model's
 * price learned (its next creates wait for it under a cap); the fields returned are journaled with
 * the poll's status record, so a resumed run and the other machines of a shared run count it too.
 * A job the subscription covered shows no credit price: the model's next create may go, unpriced.
 */
export async function countPolledCost(
  ctx: ExecutionContext,
  job: PlannedJob,
  attempt: number,
  record: JobRecord,
): Promise<PolledCost> {
  if (record.creditCost === undefined) return {};
  const live = liveAttempt(ctx, job.id, attempt);
  if (record.chargeSource === 'Subscription') await ctx.budget.endProbe(job.id);
  else await ctx.budget.learnPrice(job.model, job.estimatedCredits, record.creditCost);
  if (live === undefined || live.creditCost === record.creditCost) return {};
  ctx.budget.recount(live.creditCost ?? live.estimatedCredits ?? 0, record.creditCost);
  return {
    creditCost: record.creditCost,
    ...(record.chargeSource === undefined ? {} : { chargeSource: record.chargeSource }),
  };
}
