import { listRuns } from '../../list-runs.js';
import { openRunState } from '../../open-run-state.js';
import { readRunStart } from '../../read-run-start.js';
import { readRunState } from '../../read-run-state.js';
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
  listRuns,
  readRunStart,
};
