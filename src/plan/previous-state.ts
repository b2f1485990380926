import type { JobState } from '../state/job-state.js';
import type { PreviousJobState } from './classify-job.js';

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
 * What an earlier run's replayed state says about each job, in the terms of the cost estimate, decided
 * the way apply's executor decides it (src/execute/run-job.ts). A create that may exist (`creating`,
 * `uncertain`) counts as open: the plan must not price a job that may already be paid for, unless
 * `resendUncertain` sends it again. A deferred job counts as to run only once its time has come.
 */
export function summarizePreviousState(
  jobs: ReadonlyMap<string, JobState>,
  options: PreviousStateOptions = {},
): Map<string, PreviousJobState> {
  const now = options.now ?? Date.now();
  const summary = new Map<string, PreviousJobState>();
  for (const [id, job] of jobs) {
    summary.set(id, { payloadHash: job.payloadHash, ...toPrevious(job, options, now) });
  }
  return summary;
}

function toPrevious(
  job: JobState,
  options: PreviousStateOptions,
  now: number,
): Pick<PreviousJobState, 'status' | 'retryable' | 'unanswered'> {
  // Read only for the statuses that need it: a finished job may still be on disk (stored-job.ts).
  const last = () => job.attempts.at(-1);
  switch (job.status) {
    case 'pending':
      return { status: 'pending' };
    case 'done':
      return { status: 'done' };
    case 'failed':
      return { status: 'failed', retryable: options.retryFailed === true };
    case 'deferred':
      return (last()?.notBefore ?? now) > now
        ? { status: 'deferred' }
        : { status: 'failed', retryable: true };
    case 'creating':
      // Re-sent with its key (no new job) or left uncertain; apply reserves its credits either way.
      return { status: 'open', unanswered: true };
    case 'uncertain': {
      const jobId = last()?.jobId;
      if (jobId === undefined && options.resendUncertain === true) return { status: 'pending' };
      return jobId === undefined ? { status: 'open', unanswered: true } : { status: 'open' };
    }
    case 'open':
      return { status: 'open' };
  }
}
