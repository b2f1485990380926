/**
 * Runs one request until it succeeds or the retry policy gives up, sleeping on the injected clock.
 */
import type { Clock } from '../clock.js';
import { NetworkError, ResendWithheldError, ServiceError } from './errors.js';
import type { RateLimitGate } from './rate-limit-gate.js';
import {
  decideRetry,
  isRefusal,
  type FailureInfo,
  type RetryOptions,
  type RetrySafety,
} from './retry-policy.js';
import type { ClientEvent } from './client-event.js';

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
  /** The account-wide pause after a 429 (see {@link RateLimitGate}); absent: this request waits alone. */
  gate?: RateLimitGate;
  /**
   * Asked right before each re-send (every attempt after the first, once any wait is over): false
   * stops the loop with a {@link ResendWithheldError}, nothing more sent. A create passes its state
   * lock's check: a wait (a long `Retry-After`) may outlast the lease, and the runner that took the run
   * over may re-send the same create itself (a second payment for a create without a key).
   */
  beforeResend?: () => Promise<boolean>;
}

/** Calls `attempt` until it resolves; rethrows the last error when the policy gives up. */
export async function runWithRetry<T>(ctx: RetryContext, attempt: () => Promise<T>): Promise<T> {
  let earlierSendMayHaveActed = ctx.earlierSendAt !== undefined;
  const firstSentAt = ctx.earlierSendAt ?? ctx.clock.now();
  let lastError: Error | undefined;
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      await ctx.gate?.wait(ctx.signal);
      // A pause the gate imposed after this request's last failure may have run past the key's window.
      if (lastError !== undefined && isPastResendWindow(ctx, earlierSendMayHaveActed, firstSentAt, 0)) {
        if (lastError instanceof ServiceError) lastError.earlierSendMayHaveActed = true;
        throw lastError;
      }
      if (lastError !== undefined && ctx.beforeResend !== undefined && !(await ctx.beforeResend())) {
        const withheld = new ResendWithheldError({ method: ctx.method, path: ctx.path }, lastError);
        withheld.earlierSendMayHaveActed = earlierSendMayHaveActed;
        lastError = withheld;
        throw withheld;
      }
      return await attempt();
    } catch (error) {
      if (error === lastError) throw error;
      lastError = error instanceof Error ? error : new Error(String(error));
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
      if (isPastResendWindow(ctx, earlierSendMayHaveActed, firstSentAt, decision.delayMs)) {
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
      if (ctx.gate !== undefined && isRateLimit(failure)) {
        // The account is paused, not this request: every request waits at the gate (loop top).
        if (ctx.gate.pause(decision.delayMs)) {
          ctx.onEvent?.({
            type: 'rate-limit-pause',
            method: ctx.method,
            path: ctx.path,
            delayMs: decision.delayMs,
            reason: decision.reason,
          });
        }
        continue;
      }
      await ctx.clock.sleep(decision.delayMs, ctx.signal);
    }
  }
}

/** Whether a re-send after `delayMs` would go out past the idempotency key's window. */
function isPastResendWindow(
  ctx: RetryContext,
  earlierSendMayHaveActed: boolean,
  firstSentAt: number,
  delayMs: number,
): boolean {
  return (
    earlierSendMayHaveActed &&
    ctx.resendWindowMs !== undefined &&
    ctx.clock.now() + delayMs - firstSentAt >= ctx.resendWindowMs
  );
}

/** HTTP 429 or `AGENT_QUEUE_FULL` (with any status, api-notes): the account's limit. */
function isRateLimit(failure: FailureInfo): boolean {
  return failure.type === 'status' && (failure.status === 429 || failure.errorCode === 'AGENT_QUEUE_FULL');
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
