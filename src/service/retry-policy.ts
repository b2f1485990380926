/**
 * When to retry a failed request and how long to wait: a pure function of the attempt, the failure,
 * the `Retry-After` header, the time and a random number (like ky's retry timing), so every rule is
 * testable without waiting.
 */
import type { NetworkFailure } from './errors.js';

/** Retry tuning; every field has a default ({@link DEFAULT_RETRY_OPTIONS}). */
export interface RetryOptions {
  /** Retries after the first attempt. @default 5 */
  maxRetries: number;
  /** First backoff ceiling; doubles per attempt. @default 500 */
  baseDelayMs: number;
  /** Backoff ceiling. @default 30_000 */
  maxDelayMs: number;
  /** Wait after `AGENT_QUEUE_FULL` without `Retry-After` (api-notes: the vendor's tool waits 60 s). @default 60_000 */
  queueFullDelayMs: number;
  /** A `Retry-After` longer than this is not waited for: the request gives up. @default 300_000 */
  maxRetryAfterMs: number;
  /**
   * How long after its first send a keyed create may still be re-sent, below the service's ~5 minute
   * key window (spec 4.3 rule 4): past it, a re-send of a create the service did make would make a
   * second, paid job. @default 270_000
   */
  idempotencyWindowMs: number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxRetries: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  queueFullDelayMs: 60_000,
  maxRetryAfterMs: 300_000,
  idempotencyWindowMs: 270_000,
};

/** What went wrong with one attempt. */
export type FailureInfo =
  | { type: 'status'; status: number; errorCode?: string; retryAfter?: string }
  | { type: 'network'; failure: NetworkFailure };

/**
 * Whether re-sending can do harm. `safe`: reads, presign, the blob PUT, and creates that carry an
 * idempotency key the endpoint honours. `unkeyed-create`: a paid create without one; it may only be
 * re-sent after a failure that proves nothing was created.
 */
export type RetrySafety = 'safe' | 'unkeyed-create';

export interface RetryInput {
  /** 1-based number of the attempt that just failed. */
  attempt: number;
  failure: FailureInfo;
  safety: RetrySafety;
  /** Epoch ms, for an HTTP-date `Retry-After`. */
  now: number;
  /** A number in [0, 1), for full jitter. */
  random: number;
  options: RetryOptions;
}

export type RetryDecision =
  { retry: true; delayMs: number; reason: string } | { retry: false; reason: string };

/** Decides whether to retry and after how many milliseconds. */
export function decideRetry(input: RetryInput): RetryDecision {
  const { attempt, failure, safety, options } = input;
  const reason = describeFailure(failure);
  if (attempt > options.maxRetries) return { retry: false, reason: `${reason}; retries exhausted` };

  if (isRefusal(failure)) {
    const fromHeader = failure.type === 'status' ? parseRetryAfter(failure.retryAfter, input.now) : undefined;
    const isQueueFull = failure.type === 'status' && failure.errorCode === 'AGENT_QUEUE_FULL';
    const delayMs = fromHeader ?? (isQueueFull ? options.queueFullDelayMs : computeBackoff(input));
    if (delayMs > options.maxRetryAfterMs) {
      return { retry: false, reason: `${reason}; asked to wait ${delayMs} ms, over the limit` };
    }
    return { retry: true, delayMs, reason };
  }

  if (!isTransient(failure)) return { retry: false, reason: `${reason}; not retryable` };
  if (safety === 'unkeyed-create') {
    return { retry: false, reason: `${reason}; a create without idempotency key may have gone through` };
  }
  return { retry: true, delayMs: computeBackoff(input), reason };
}

/** Failures that prove the service did not act on the request: retrying cannot double anything. */
export function isRefusal(failure: FailureInfo): boolean {
  if (failure.type === 'network') return failure.failure === 'connect';
  return failure.status === 429 || failure.errorCode === 'AGENT_QUEUE_FULL';
}

/** Faults worth retrying where the service may or may not have acted. */
function isTransient(failure: FailureInfo): boolean {
  if (failure.type === 'network') return true;
  return failure.status >= 500 || failure.status === 408;
}

/** Full jitter over a capped exponential ceiling (AWS "exponential backoff and jitter"). */
function computeBackoff(input: RetryInput): number {
  const { baseDelayMs, maxDelayMs } = input.options;
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (input.attempt - 1));
  return Math.floor(input.random * ceiling);
}

/**
 * `Retry-After` in delta-seconds or as an HTTP date (RFC 9110 10.2.3). `undefined` when absent or
 * unreadable; a date in the past means no wait.
 */
export function parseRetryAfter(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function describeFailure(failure: FailureInfo): string {
  if (failure.type === 'network') return `network ${failure.failure}`;
  return failure.errorCode === undefined
    ? `HTTP ${failure.status}`
    : `HTTP ${failure.status} ${failure.errorCode}`;
}
