import { FAILURE_KINDS, type FailureKind } from '../service/types.js';

/** What to do when a job fails with a given failureKind. */
export type FailureAction = 'retry' | 'defer' | 'fail';

/** Spec 7.3: only GENERATION_TIMEOUT is worth an immediate retry; QUOTA_EXHAUSTED after a few hours. */
export const DEFAULT_FAILURE_ACTIONS: Readonly<Record<FailureKind, FailureAction>> = {
  PROMPT_UNCLEAR: 'fail',
  CONTENT_REJECTED: 'fail',
  TRANSPARENT_CREATION_FAILED: 'fail',
  REFERENCE_DOWNLOAD_FAILED: 'fail',
  GENERATION_TIMEOUT: 'retry',
  QUOTA_EXHAUSTED: 'defer',
  SESSION_EXPIRED: 'fail',
  INVALID_PAYLOAD: 'fail',
};

/** Spec 7.3's advice per failureKind. */
export const FAILURE_ADVICE: Readonly<Record<FailureKind, string>> = {
  PROMPT_UNCLEAR: 'The description is too vague: change the prompt.',
  CONTENT_REJECTED: 'The prompt is against the content policy: change the prompt.',
  TRANSPARENT_CREATION_FAILED:
    'Transparency was requested but the result had no alpha: be more explicit in the prompt.',
  REFERENCE_DOWNLOAD_FAILED:
    'A reference image could not be fetched: fix the link (some hosts block server-side fetches).',
  GENERATION_TIMEOUT: 'The job ran out of time; a retry usually works.',
  QUOTA_EXHAUSTED: 'The service is temporarily at capacity; retry after a few hours.',
  SESSION_EXPIRED: 'A problem on the service side: contact support.',
  INVALID_PAYLOAD: 'A problem on the service side: contact support.',
};

export interface RetryPolicy {
  /** Attempts per job (per payload) in all, the first included. @default 3 */
  maxAttempts: number;
  /** Delay before retry n (1-based) is `backoffMs * 2^(n-1)`. @default 5000 */
  backoffMs: number;
  /** How long a deferred job waits. @default 3 hours */
  deferMs: number;
  /** Per-failureKind overrides of {@link DEFAULT_FAILURE_ACTIONS}. */
  actions: Partial<Record<string, FailureAction>>;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  backoffMs: 5_000,
  deferMs: 3 * 60 * 60 * 1000,
  actions: {},
};

export interface FailureDecision {
  action: FailureAction;
  /** What the user should do, or why the runner gave up. */
  advice: string;
}

/**
 * Decides what follows a failed attempt. `attemptsUsed` counts this payload's attempts so far, the
 * failed one included; at `maxAttempts` a retry or defer becomes a failure.
 */
export function decideFailure(
  failureKind: string | undefined,
  attemptsUsed: number,
  policy: RetryPolicy,
): FailureDecision {
  const known = isFailureKind(failureKind) ? failureKind : undefined;
  const action =
    (failureKind === undefined ? undefined : policy.actions[failureKind]) ??
    (known === undefined ? 'fail' : DEFAULT_FAILURE_ACTIONS[known]);
  const advice =
    known === undefined
      ? `The service reported an unknown failure${failureKind === undefined ? ' without a failureKind' : ` kind "${failureKind}"`}; not retried.`
      : FAILURE_ADVICE[known];
  if (action !== 'fail' && attemptsUsed >= policy.maxAttempts) {
    return { action: 'fail', advice: `${advice} Gave up after ${attemptsUsed} attempts.` };
  }
  return { action, advice };
}

export function isFailureKind(value: string | undefined): value is FailureKind {
  return value !== undefined && (FAILURE_KINDS as readonly string[]).includes(value);
}

/** Delay before the retry that follows attempt `attempt` (1-based). */
export function computeRetryDelay(policy: RetryPolicy, attempt: number): number {
  return policy.backoffMs * 2 ** Math.max(0, attempt - 1);
}
