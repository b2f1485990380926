import { deleteFolderRun, removeSetAsideRuns } from './delete-run-folder.js';
import { listRuns } from './list-runs.js';
import { locateRunState } from './locate-run-state.js';
import { openRunState } from './open-run-state.js';
import { readOtherRunsJobs } from './other-runs-jobs.js';
import { readFirstRunRecord, readRunStart } from './read-run-start.js';
import { readRunState } from './read-run-state.js';
import type { StateStore } from '../../state-store.js';

/**
 * The local folder backend (the default): one folder per run, `<root>/<pipeline>/<run>/`, holding the
 * fsynced `journal.jsonl`, its snapshot and the `lock` file (see src/state/). One machine at a time: a
 * second process is refused by the lock.
 */
export const folderStateStore: StateStore = {
  kind: 'folder',
  openRun: openRunState,
  readRun: readRunState,
  async listRuns(input) {
    if (input.except === undefined) return listRuns(input);
    // The run's own folder, wherever it is (a journal of the old flat layout is the root itself).
    const own = await locateRunState({ ...input, runId: input.except });
    return listRuns({ ...input, exceptDir: own.dir });
  },
  readRunStart,
  readFirstRunRecord,
  otherRunsJobs: readOtherRunsJobs,
  deleteRun: deleteFolderRun,
  removeDeletionLeftovers: removeSetAsideRuns,
};
