import type { JobState } from '../state/index.js';
import type { PreviousJobState } from './classify-job.js';
import { nextStep, stepViewOf, type NextStep, type StepPolicy } from './next-step.js';

/** What apply would do with the state's jobs: the flags and the time that decide it. */
export interface PreviousStateOptions {
  /** `--retry-failed`: permanent failures are re-sent. */
  retryFailed?: boolean;
  /** `--resend-uncertain`: a create whose answer was lost (no job id) is sent again. */
  resendUncertain?: boolean;
  /** Now (ms since the epoch): a deferred job waits until its `notBefore`. @default Date.now() */
  now?: number;
}

/**
 * What an earlier run's replayed state says about each job, in the terms of the cost estimate: the
 * step apply would take first ({@link nextStep}, the rule src/execute/run-job.ts performs) mapped to a
 * cost class. A create that may exist (`creating`, `uncertain`) counts as open: the plan must not price a
 * job that may already be paid for, unless `resendUncertain` sends it again. A deferred job counts as
 * to run only once its time has come. Replacements are not this rule's: the cost check forgets a
 * replaced job's state, so it is priced as new.
 */
export function summarizePreviousState(
  jobs: ReadonlyMap<string, JobState>,
  options: PreviousStateOptions = {},
): Map<string, PreviousJobState> {
  const policy: StepPolicy = {
    replaceDue: false,
    retryFailed: options.retryFailed === true,
    resendUncertain: options.resendUncertain === true,
    // A create without an answer is reserved whether it is re-sent with its key or settled otherwise.
    idempotent: false,
    keyWindowMs: 0,
  };
  const now = options.now ?? Date.now();
  const summary = new Map<string, PreviousJobState>();
  for (const [id, job] of jobs) {
    const step = nextStep(stepViewOf(job), true, policy, now);
    summary.set(id, { payloadHash: job.payloadHash, ...costClassOf(step) });
  }
  return summary;
}

/** How the plan counts a job whose state's next step is `step` (its payload unchanged). */
export function costClassOf(step: NextStep): Pick<PreviousJobState, 'status' | 'retryable' | 'unanswered'> {
  switch (step.kind) {
    case 'skip':
      return { status: 'done' };
    case 'give-up':
      return { status: 'failed', retryable: false };
    case 'wait':
      return { status: 'deferred' };
    case 'create':
      // A failure retried now, or a deferral whose time has come: a failed job apply tries again.
      return step.why === 'retry-failed' || step.why === 'deferred-due'
        ? { status: 'failed', retryable: true }
        : { status: 'pending' };
    case 'resend':
      return { status: 'pending' };
    case 'follow':
      return { status: 'open' };
    case 'resend-with-key':
    case 'settle-lost-create':
    case 'look-up':
      // Re-sent with its key (no new job), looked up or left uncertain: its credits are reserved.
      return { status: 'open', unanswered: true };
  }
}
