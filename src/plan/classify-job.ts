import type { Balance, Subscription } from '../service/types.js';
import type { CatalogOrigin } from './catalog-prices.js';
import type { JobStateClass } from './cost-report.js';
import { matchesPayload, type PayloadHashes } from '../catalog/payload-hash.js';

/** What the previous run's state says about one job (a plain summary of the state journal). */
export interface PreviousJobState {
  payloadHash: string;
  /**
   * `pending`: recorded but never created; counted like a new job. `deferred`: a temporary failure
   * whose retry time has not come (apply skips it).
   */
  status: 'done' | 'failed' | 'open' | 'pending' | 'deferred';
  /** For `failed`: whether apply would try again. @default true (counted: the conservative choice) */
  retryable?: boolean;
  /** For `open`: a create with no job id known; apply reserves its credits against the budget. */
  unanswered?: boolean;
}

/** The account figures the estimate is checked against; leave a field out when it was not fetched. */
export interface CostAccount {
  balance?: Balance;
  /** `'unknown'` (or absent) when the subscription could not be read: every job is assumed paid in credits. */
  subscription?: Subscription | 'unknown';
}

export interface CostOptions {
  /** Attempts per job, first try included (manifest `retry.maxAttempts`). */
  maxAttempts: number;
  /** jobId → previous state; absent means every job is new. */
  previous?: ReadonlyMap<string, PreviousJobState>;
  /**
   * Credits the run's state has already spent (`sumBudgetedCredits` of every job in it): apply counts
   * them against the budget and `--max-credits`, so the plan does too. @default 0
   */
  alreadySpent?: number;
  /** `--max-credits`: a cap on all the run's spending, like the manifest `budget` (the lower one wins). */
  maxCredits?: number;
  /**
   * Keep what `runner diff` reads (each job's payload hash, prompt and params, the catalog's prices,
   * the schedule) in the report, with where the catalog came from: the JSON plan's. Off by default:
   * it costs time and memory per job.
   */
  diffData?: { catalogOrigin: CatalogOrigin };
}

/** Where a planned job stands against the previous run's state. */
export function classifyJob(
  job: PayloadHashes,
  previous: PreviousJobState | undefined,
): {
  state: JobStateClass;
  toRun: boolean;
} {
  if (previous === undefined || previous.status === 'pending') return { state: 'new', toRun: true };
  if (!matchesPayload(previous.payloadHash, job)) return { state: 'changed', toRun: true };
  if (previous.status === 'failed') return { state: 'failed', toRun: previous.retryable !== false };
  if (previous.status === 'deferred') return { state: 'deferred', toRun: false };
  return { state: previous.status, toRun: false };
}
