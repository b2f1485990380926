/**
 * Runs one request until it succeeds or the retry policy gives up, sleeping on the injected clock.
 */
import type { Clock } from '../clock.js';
import { NetworkError, ServiceError } from './errors.js';
import {
  decideRetry,
  isRefusal,
  type FailureInfo,
  type RetryOptions,
  type RetrySafety,
} from './retry-policy.js';
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
  /**
   * Set for a keyed create: once a send may have been acted on, no re-send goes out later than this
   * long after the first send (the service's idempotency key would no longer protect it).
   */
  resendWindowMs?: number;
  /** An earlier send of this request (before this call) that the service may have acted on. */
  earlierSendAt?: number;
}

/** Calls `attempt` until it resolves; rethrows the last error when the policy gives up. */
export async function runWithRetry<T>(ctx: RetryContext, attempt: () => Promise<T>): Promise<T> {
  let earlierSendMayHaveActed = ctx.earlierSendAt !== undefined;
  const firstSentAt = ctx.earlierSendAt ?? ctx.clock.now();
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt();
    } catch (error) {
      // A final refusal (429, 402...) after an ambiguous send proves nothing about that earlier send.
      if (earlierSendMayHaveActed && error instanceof ServiceError) error.earlierSendMayHaveActed = true;
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
      if (!isRefusal(failure)) earlierSendMayHaveActed = true;
      if (
        earlierSendMayHaveActed &&
        ctx.resendWindowMs !== undefined &&
        ctx.clock.now() + decision.delayMs - firstSentAt >= ctx.resendWindowMs
      ) {
        if (error instanceof ServiceError) error.earlierSendMayHaveActed = true;
        throw error;
      }
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
