import type { JobState } from './job-state.js';
import { viewJobState } from './stored-job.js';

/** What the other runs of a pipeline hold: a lost create must not adopt their jobs (issue #24.8). */
export interface OtherRunsJobs {
  /** Every service job id any attempt of another run holds. */
  jobIds: ReadonlySet<string>;
  /**
   * Payload hashes of other runs' creates that got no answer (no job id): a listed job of that payload
   * may be theirs, so finding one is no proof it is this run's.
   */
  unansweredPayloads: ReadonlySet<string>;
  /** Runs whose state could not be read: what they hold is unknown. */
  unreadable: string[];
}

/**
 * Gathers {@link OtherRunsJobs} from the other runs, each read by `read` (its jobs, or a throw when its
 * state cannot be read): one rule for both backends.
 */
export async function gatherOtherRunsJobs(
  runIds: readonly string[],
  read: (runId: string) => Promise<Iterable<JobState>>,
): Promise<OtherRunsJobs> {
  const jobIds = new Set<string>();
  const unansweredPayloads = new Set<string>();
  const unreadable: string[] = [];
  for (const runId of runIds) {
    let jobs;
    try {
      jobs = await read(runId);
    } catch {
      unreadable.push(runId);
      continue;
    }
    for (const stored of jobs) {
      for (const attempt of viewJobState(stored).attempts) {
        if (attempt.jobId !== undefined) jobIds.add(attempt.jobId);
        else if (attempt.outcome === 'creating' || attempt.outcome === 'uncertain')
          unansweredPayloads.add(attempt.payloadHash);
      }
    }
  }
  return { jobIds, unansweredPayloads, unreadable };
}
