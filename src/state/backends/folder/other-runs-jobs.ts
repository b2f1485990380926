import { join } from 'node:path';
import { gatherOtherRunsJobs, type OtherRunsJobs } from '../../other-runs-jobs.js';
import type { RunAddress } from '../../state-dir.js';
import { JOURNAL_FILE } from './journal.js';
import { listRuns } from './list-runs.js';
import { locateRunState } from './locate-run-state.js';
import { replayRunJournal } from './replay-run-journal.js';

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
