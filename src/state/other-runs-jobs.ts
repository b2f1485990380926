import { join, resolve } from 'node:path';
import { JOURNAL_FILE } from './journal.js';
import { listRuns } from './list-runs.js';
import { replayRunJournal } from './replay-run-journal.js';
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
  /** Runs whose journal could not be read: what they hold is unknown. */
  unreadable: string[];
}

/**
 * Reads the journals of every other run of the pipeline under the same state root (read-only, no
 * lock: a run that is writing only adds to what is read here). `ownRunDir` is this run's folder.
 */
export async function readOtherRunsJobs(input: {
  manifestFile: string;
  pipeline: string;
  stateDir?: string;
  ownRunDir: string;
}): Promise<OtherRunsJobs> {
  const { runs } = await listRuns(input);
  const jobIds = new Set<string>();
  const unansweredPayloads = new Set<string>();
  const unreadable: string[] = [];
  for (const run of runs) {
    if (resolve(run.dir) === resolve(input.ownRunDir)) continue;
    let jobs;
    try {
      jobs = (await replayRunJournal(join(run.dir, JOURNAL_FILE))).replay.jobs;
    } catch {
      unreadable.push(run.runId);
      continue;
    }
    for (const stored of jobs.values()) {
      for (const attempt of viewJobState(stored).attempts) {
        if (attempt.jobId !== undefined) jobIds.add(attempt.jobId);
        else if (attempt.outcome === 'creating' || attempt.outcome === 'uncertain')
          unansweredPayloads.add(attempt.payloadHash);
      }
    }
  }
  return { jobIds, unansweredPayloads, unreadable };
}
