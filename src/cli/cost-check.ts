import type { CostReport } from '../plan/cost-report.js';
import { estimateCost, type CostAccount } from '../plan/estimate-cost.js';
import { summarizePreviousState } from '../plan/previous-state.js';
import type { Plan } from '../plan/types.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Model } from '../service/types.js';
import type { JobState } from '../state/job-state.js';

/** Attempts per job when the manifest's `retry.maxAttempts` is not set. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * Prices a plan against the account (balance and, where the service has it, the subscription
 * allowance) and an earlier run's state. Without a client (an offline plan) the balance is reported
 * as not checked.
 */
export async function checkCost(input: {
  plan: Plan;
  catalog: Model[];
  maxAttempts: number;
  client?: ServiceClient;
  previousJobs?: ReadonlyMap<string, JobState>;
  retryFailed?: boolean;
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
  return estimateCost(input.plan, input.catalog, account, {
    maxAttempts: input.maxAttempts,
    ...(input.previousJobs === undefined
      ? {}
      : {
          previous: summarizePreviousState(input.previousJobs, { retryFailed: input.retryFailed === true }),
        }),
  });
}
