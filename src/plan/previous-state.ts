import type { JobState } from '../state/job-state.js';
import type { PreviousJobState } from './estimate-cost.js';

/**
 * What an earlier run's replayed state says about each job, in the terms of the cost estimate.
 * A create that may exist (`creating`, `uncertain`) counts as open: the plan must not price a job
 * that may already be paid for. A deferred job will be tried again, so it counts as a retryable failure.
 */
export function summarizePreviousState(
  jobs: ReadonlyMap<string, JobState>,
  options: { retryFailed?: boolean } = {},
): Map<string, PreviousJobState> {
  const summary = new Map<string, PreviousJobState>();
  for (const [id, job] of jobs) {
    summary.set(id, {
      payloadHash: job.payloadHash,
      ...toPrevious(job.status, options.retryFailed === true),
    });
  }
  return summary;
}

function toPrevious(
  status: JobState['status'],
  retryFailed: boolean,
): Pick<PreviousJobState, 'status' | 'retryable'> {
  switch (status) {
    case 'pending':
      return { status: 'pending' };
    case 'done':
      return { status: 'done' };
    case 'failed':
      return { status: 'failed', retryable: retryFailed };
    case 'deferred':
      return { status: 'failed', retryable: true };
    case 'creating':
    case 'open':
    case 'uncertain':
      return { status: 'open' };
  }
}
