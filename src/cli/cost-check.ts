import type { CostReport } from '../plan/cost-report.js';
import { estimateCost, type CostAccount } from '../plan/estimate-cost.js';
import { summarizePreviousState } from '../plan/previous-state.js';
import type { Plan } from '../plan/types.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Model } from '../service/types.js';
import { sumBudgetedCredits, type JobState } from '../state/job-state.js';

/** Attempts per job when the manifest's `retry.maxAttempts` is not set. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * Prices a plan against the account (balance and, where the service has it, the subscription
 * allowance) and an earlier run's state. `plan` and `apply` both decide with this one function from
 * the same inputs (state, flags, now), so a plan that fits is not followed by an apply that refuses. Without a client (an offline plan) the balance is reported
 * as not checked.
 */
export async function checkCost(input: {
  plan: Plan;
  catalog: Model[];
  maxAttempts: number;
  client?: ServiceClient;
  previousJobs?: ReadonlyMap<string, JobState>;
  retryFailed?: boolean;
  resendUncertain?: boolean;
  /** `--max-credits`. */
  maxCredits?: number;
  /** @default Date.now() */
  now?: number;
}): Promise<CostReport> {
  const account: CostAccount = {};
  if (input.client !== undefined) {
    const [balance, subscription] = await Promise.all([
      input.client.getBalance(),
      input.client.getSubscription().catch(() => undefined),
    ]);
    account.balance = balance;
    account.subscription = subscription ?? 'unknown';
  }
  let alreadySpent = 0;
  for (const job of input.previousJobs?.values() ?? []) alreadySpent += sumBudgetedCredits(job);
  return estimateCost(input.plan, input.catalog, account, {
    maxAttempts: input.maxAttempts,
    alreadySpent,
    ...(input.maxCredits === undefined ? {} : { maxCredits: input.maxCredits }),
    ...(input.previousJobs === undefined
      ? {}
      : {
          previous: summarizePreviousState(input.previousJobs, {
            retryFailed: input.retryFailed === true,
            resendUncertain: input.resendUncertain === true,
            now: input.now ?? Date.now(),
          }),
        }),
  });
}
