import type { AttemptState, JobStatus } from '../state/index.js';
import { locateInKeyWindow } from './key-window.js';

/**
 * What happens to a job next, decided from its state alone: the one rule `plan` prices and `apply`
 * performs (#34.2). Pure: the caller says whether the state's latest attempt was sent with the job's
 * current payload, and what this run allows.
 * - `skip`: done; nothing is sent (results still owed are downloaded)
 * - `follow`: poll the job id the latest attempt holds; `then: 'create'` when the payload changed since
 *   (an open paid job is followed to its end before the changed job is created, #11.2)
 * - `create`: a new attempt, with a new key, which is paid
 * - `resend-with-key`: the latest attempt's create again, with its key, inside the key's window: the
 *   service answers with the job it made, if it made one (nothing paid twice)
 * - `settle-lost-create`: a create with no answer that cannot be re-sent with its key (past the window, or
 *   an endpoint without keys): wait for a late answer, then look it up or re-send as the run allows
 * - `look-up`: an uncertain create with no job id: search the service's recent jobs, else give up for now
 * - `resend`: an uncertain create sent again on request (`--resend-uncertain`): it may pay twice
 * - `wait`: deferred by a temporary failure until `until`
 * - `give-up`: failed, and this run does not retry it
 */
export type NextStep =
  | { kind: 'skip' }
  | { kind: 'follow'; then?: 'create' }
  | { kind: 'create'; why: CreateReason }
  | { kind: 'resend-with-key' }
  | { kind: 'settle-lost-create' }
  | { kind: 'look-up' }
  | { kind: 'resend' }
  | { kind: 'wait'; until: number }
  | { kind: 'give-up' };

/**
 * Why a new attempt is created: `new` (nothing sent yet, or a due attempt), `changed` (the payload
 * differs from the latest attempt's), `replace` (`--replace`: one new attempt of a finished job),
 * `retry-failed` (`--retry-failed`), `deferred-due` (a deferred job whose time has come).
 */
export type CreateReason = 'new' | 'changed' | 'replace' | 'retry-failed' | 'deferred-due';

/** What this run allows a job, and what its kind can do. */
export interface StepPolicy {
  /** A `--replace` of this job is still due in this run (one new attempt, whatever its outcome). */
  replaceDue: boolean;
  /** A permanent failure is created again (`--retry-failed`, once per run). */
  retryFailed: boolean;
  /** An uncertain create with no job id is sent again (`--resend-uncertain`) rather than looked up. */
  resendUncertain: boolean;
  /** The job's endpoint takes an idempotency key (images do; videos do not). */
  idempotent: boolean;
  /** How long the service remembers a key after its first send. */
  keyWindowMs: number;
}

/**
 * The part of a job's state the rule reads: its status, and its latest attempt read only when the status
 * needs it (a finished job of a state snapshot stays on disk: src/state/stored-job.ts).
 */
export interface StepView {
  status: JobStatus;
  last: () => Pick<AttemptState, 'jobId' | 'idempotencyKey' | 'intentAt' | 'notBefore'> | undefined;
}

/** A job's state as the rule reads it. */
export function stepViewOf(state: { status: JobStatus; attempts: readonly AttemptState[] }): StepView {
  return { status: state.status, last: () => state.attempts.at(-1) };
}

/**
 * The next step for a job (`undefined`: nothing in the state yet). `samePayload`: whether the latest
 * attempt was sent with the job's current payload (true when there is no attempt). `now`: ms since the
 * epoch, for the key window and a deferral.
 */
export function nextStep(
  state: StepView | undefined,
  samePayload: boolean,
  policy: StepPolicy,
  now: number,
): NextStep {
  if (state === undefined) return { kind: 'create', why: 'new' };
  if (!samePayload) {
    const followable = state.status === 'open' || state.status === 'uncertain';
    return followable && state.last()?.jobId !== undefined
      ? { kind: 'follow', then: 'create' }
      : { kind: 'create', why: 'changed' };
  }
  if (policy.replaceDue && (state.status === 'done' || state.status === 'failed')) {
    return { kind: 'create', why: 'replace' };
  }
  switch (state.status) {
    case 'done':
      return { kind: 'skip' };
    case 'failed':
      return policy.retryFailed ? { kind: 'create', why: 'retry-failed' } : { kind: 'give-up' };
    case 'deferred': {
      const notBefore = state.last()?.notBefore;
      return notBefore !== undefined && now < notBefore
        ? { kind: 'wait', until: notBefore }
        : { kind: 'create', why: 'deferred-due' };
    }
    case 'uncertain':
      // A job id the service once gave is never created again, not even on request: it is asked again.
      if (state.last()?.jobId !== undefined) return { kind: 'follow' };
      return policy.resendUncertain ? { kind: 'resend' } : { kind: 'look-up' };
    case 'creating': {
      const last = state.last();
      return policy.idempotent &&
        last?.idempotencyKey !== undefined &&
        locateInKeyWindow(now, last.intentAt, policy.keyWindowMs) === 'inside'
        ? { kind: 'resend-with-key' }
        : { kind: 'settle-lost-create' };
    }
    case 'open':
      return { kind: 'follow' };
    case 'pending':
      return { kind: 'create', why: 'new' };
  }
}

/** Whether a step sends a create that may be paid: what the plan counts as a job to run. */
export function stepMayPay(step: NextStep): boolean {
  return (
    step.kind === 'create' || step.kind === 'resend' || (step.kind === 'follow' && step.then === 'create')
  );
}
