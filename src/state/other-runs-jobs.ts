import { join } from 'node:path';
import { JOURNAL_FILE } from './journal.js';
import type { JobState } from './job-state.js';
import { listRuns } from './list-runs.js';
import { locateRunState } from './locate-run-state.js';
import { replayRunJournal } from './replay-run-journal.js';
import type { RunAddress } from './state-dir.js';
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

/**
 * The folder backend's {@link OtherRunsJobs}: the journals of every other run of the pipeline under the
 * same state root (read-only, no lock: a run that is writing only adds to what is read here).
 */
export async function readOtherRunsJobs(where: RunAddress): Promise<OtherRunsJobs> {
  const own = await locateRunState(where);
  const { runs } = await listRuns({ ...where, exceptDir: own.dir });
  const dirs = new Map(runs.map((run) => [run.runId, run.dir]));
  return gatherOtherRunsJobs([...dirs.keys()], async (runId) => {
    const dir = dirs.get(runId) ?? '';
    return (await replayRunJournal(join(dir, JOURNAL_FILE))).replay.jobs.values();
  });
}
