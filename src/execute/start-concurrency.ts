import type { ServiceClient } from '../service/service-client.js';
import { errorMessageOf } from './error-info.js';
import { MAX_CONCURRENCY } from './concurrency.js';

export type StartConcurrency =
  | { concurrency: number; lowered: true; reason: string }
  | { concurrency: number; lowered: false; note?: string };

/**
 * The concurrency to start with, BEFORE the first create (issue #7.12): the account's
 * `maxConcurrentJobs` (GET /account/subscription), capped at 4 and at `--concurrency`, so the first
 * wave of creates never exceeds a lower figure. When the endpoint is missing, fails or answers
 * oddly, the run starts with the configured figure (at most 4) and says why in `note`.
 */
export async function readStartConcurrency(
  client: Pick<ServiceClient, 'getSubscription'>,
  configured: number,
  signal?: AbortSignal,
): Promise<StartConcurrency> {
  const fallback = Math.min(configured, MAX_CONCURRENCY);
  let reported: number | undefined;
  try {
    const subscription = await client.getSubscription(signal === undefined ? undefined : { signal });
    if (subscription === undefined) {
      return {
        concurrency: fallback,
        lowered: false,
        note: `The service has no subscription endpoint (GET /account/subscription): starting with ${fallback} jobs at once.`,
      };
    }
    reported = subscription.maxConcurrentJobs;
  } catch (error) {
    return {
      concurrency: fallback,
      lowered: false,
      note: `Could not read the account's job limit (${errorMessageOf(error)}): starting with ${fallback} jobs at once.`,
    };
  }
  if (reported === undefined || !Number.isFinite(reported) || reported < 1) {
    return {
      concurrency: fallback,
      lowered: false,
      note: `The subscription does not report a usable maxConcurrentJobs: starting with ${fallback} jobs at once.`,
    };
  }
  const allowed = Math.floor(reported);
  if (allowed >= fallback) return { concurrency: fallback, lowered: false };
  return {
    concurrency: allowed,
    lowered: true,
    reason: `the subscription allows ${allowed} jobs at once (maxConcurrentJobs)`,
  };
}
