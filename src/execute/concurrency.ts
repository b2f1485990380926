import pLimit, { type LimitFunction } from 'p-limit';

/** The service allows 4 running jobs per user across all endpoints (spec 8). */
export const MAX_CONCURRENCY = 4;

export interface JobLimiter {
  readonly limit: LimitFunction;
  /**
   * Follows the `concurrency` a create answer reports: lowers the limit to it, or raises it back up
   * to the configured maximum. Returns the change, or undefined when nothing changed.
   */
  follow(reported: number | undefined): { from: number; to: number } | undefined;
}

/** A p-limit whose slots are the jobs open at once (created and not finished). */
export function createJobLimiter(configured: number): JobLimiter {
  const max = Math.max(1, Math.min(MAX_CONCURRENCY, Math.floor(configured)));
  const limit = pLimit(max);
  return {
    limit,
    follow(reported) {
      if (reported === undefined || !Number.isFinite(reported) || reported < 1) return undefined;
      const to = Math.min(max, Math.floor(reported));
      const from = limit.concurrency;
      if (to === from) return undefined;
      limit.concurrency = to;
      return { from, to };
    },
  };
}
