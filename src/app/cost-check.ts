import { estimateCostView } from '../plan/estimate-cost.js';
import type { CostAccount, CostOptions } from '../plan/classify-job.js';
import { summarizePreviousState } from '../plan/previous-state.js';
import { forgetReplacedJobs } from '../plan/targeting-report.js';
import type { CostReportView } from '../plan/job-table.js';
import type { Plan } from '../plan/types.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Model } from '../service/types.js';
import { type JobState, sumBudgetedCredits } from '../state/index.js';

/** Attempts per job when the manifest's `retry.maxAttempts` is not set. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/**
 * Prices a plan against the account (balance and, where the service has it, the subscription
 * allowance) and an earlier run's state. `plan` and `apply` both decide with this one function from
 * the same inputs (state, flags, now), so a plan that fits is not followed by an apply that refuses. Without a client (an offline plan) the balance is reported
 * as not checked.
 */
export async function checkCost(input: CostCheckInput & { plan: Plan }): Promise<CostReportView> {
  return estimateCostView(
    input.plan,
    input.catalog,
    await readCostAccount(input.client),
    readCostOptions(input),
  );
}

/** What pricing needs besides the plan. */
export interface CostCheckInput {
  catalog: Model[];
  maxAttempts: number;
  client?: ServiceClient;
  /** The run's whole state: every job's spending counts against the budget, replaced ones too. */
  previousJobs?: ReadonlyMap<string, JobState>;
  /** `--replace`: these jobs are priced as new, while what they already cost stays spent. */
  replace?: readonly string[];
  retryFailed?: boolean;
  resendUncertain?: boolean;
  /** `--max-credits`. */
  maxCredits?: number;
  /** Keep the parts `runner diff` reads in the report (see `CostOptions.diffData`). */
  diffData?: CostOptions['diffData'];
  /** @default Date.now() */
  now?: number;
}

/** The balance and subscription, when there is a client (an offline plan has neither). */
export async function readCostAccount(client: ServiceClient | undefined): Promise<CostAccount> {
  const account: CostAccount = {};
  if (client !== undefined) {
    const [balance, subscription] = await Promise.all([
      client.getBalance(),
      client.getSubscription().catch(() => undefined),
    ]);
    account.balance = balance;
    account.subscription = subscription ?? 'unknown';
  }
  return account;
}

/**
 * The estimate's options from the state and the flags, decided as apply decides them: apply's budget
 * starts from what every job of the state cost, a `--replace`d one included (its earlier attempt was
 * paid), so the verdict does too; only the job's status is forgotten, so it is priced as new.
 */
export function readCostOptions(input: Omit<CostCheckInput, 'catalog' | 'client'>): CostOptions {
  let alreadySpent = 0;
  for (const job of input.previousJobs?.values() ?? []) alreadySpent += sumBudgetedCredits(job);
  const previousJobs =
    input.previousJobs === undefined ? undefined : forgetReplacedJobs(input.previousJobs, input.replace);
  return {
    maxAttempts: input.maxAttempts,
    alreadySpent,
    ...(input.maxCredits === undefined ? {} : { maxCredits: input.maxCredits }),
    ...(input.diffData === undefined ? {} : { diffData: input.diffData }),
    ...(previousJobs === undefined
      ? {}
      : {
          previous: summarizePreviousState(previousJobs, {
            retryFailed: input.retryFailed === true,
            resendUncertain: input.resendUncertain === true,
            now: input.now ?? Date.now(),
          }),
        }),
  };
}
