/**
 * Runs one request until it succeeds or the retry policy gives up, sleeping on the injected clock.
 */
import type { Clock } from '../clock.js';
import { NetworkError, ServiceError } from './errors.js';
import { decideRetry, type FailureInfo, type RetryOptions, type RetrySafety } from './retry-policy.js';
import type { ClientEvent } from './service-client.js';

export interface RetryContext {
  method: string;
  path: string;
  safety: RetrySafety;
  clock: Clock;
  random: () => number;
  options: RetryOptions;
  onEvent?: (event: ClientEvent) => void;
  signal?: AbortSignal;
}

/** Calls `attempt` until it resolves; rethrows the last error when the policy gives up. */
export async function runWithRetry<T>(ctx: RetryContext, attempt: () => Promise<T>): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt();
    } catch (error) {
      const failure = describeFailure(error);
      if (failure === undefined) throw error;
      const decision = decideRetry({
        attempt: attemptNumber,
        failure,
        safety: ctx.safety,
        now: ctx.clock.now(),
        random: ctx.random(),
        options: ctx.options,
      });
      if (!decision.retry) throw error;
      ctx.onEvent?.({
        type: 'retry',
        method: ctx.method,
        path: ctx.path,
        attempt: attemptNumber,
        delayMs: decision.delayMs,
        reason: decision.reason,
      });
      await ctx.clock.sleep(decision.delayMs, ctx.signal);
    }
  }
}

/** `undefined` for errors the policy has no say on (bad shape, 4xx handled as status, aborts, bugs). */
function describeFailure(error: unknown): FailureInfo | undefined {
  if (error instanceof NetworkError) return { type: 'network', failure: error.failure };
  if (error instanceof ServiceError && error.status !== undefined && error.code !== 'UNEXPECTED_RESPONSE') {
    const info: Extract<FailureInfo, { type: 'status' }> = { type: 'status', status: error.status };
    if (error.errorCode !== undefined) info.errorCode = error.errorCode;
    if (error.retryAfter !== undefined) info.retryAfter = error.retryAfter;
    return info;
  }
  return undefined;
}
