import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RunnerError } from '../../../errors.js';
import { syncDirectory } from './sync-directory.js';
import { summarizeReplay } from '../../run-summary.js';
import { locateRunState } from './locate-run-state.js';
import { checkJournalIdentity } from '../../journal-identity.js';
import { acquireLock } from './lock.js';
import {
  describeUnfinished,
  toPrunedRun,
  type DeleteRunOptions,
  type DeleteRunResult,
} from '../../prune-runs.js';
import { replayRunJournal } from './replay-run-journal.js';
import { resolvePipelineDir, type RunAddress } from '../../state-dir.js';
import { journalPathFor } from './journal.js';

/**
 * A run's folder set aside for deletion: `<pipeline>/.pruned-<run>-<random>/`. No run's folder starts
 * with a dot (run ids and `toSafeSegment` never make one), so `runs`, `status` and apply never read it.
 */
const SET_ASIDE_PREFIX = '.pruned-';

/**
 * The folder backend's {@link StateStore.deleteRun}: everything a run keeps in its folder (the journal,
 * its snapshot, the lock, a moved mark, the copies `state check --repair` and `state pull` left beside
 * the journal) goes with the folder. The upload cache (`uploads.json` in the state root) is shared by
 * every run and stays; results are never in the state folder and are never touched.
 *
 * Under the run's lock (a live apply's lock refuses it), the folder is first renamed aside in one step
 * (`rename`, the parent fsynced), then removed: a crash between the two leaves a run that reads as gone,
 * and a folder the next prune of the pipeline removes.
 */
export async function deleteFolderRun(
  where: RunAddress,
  options: DeleteRunOptions = {},
): Promise<DeleteRunResult> {
  const { runId } = where;
  const location = await locateRunState(where);
  const { dir } = location;
  const journalPath = journalPathFor(dir);
  if (!existsSync(journalPath)) return { kind: 'missing', runId };
  if (dir === location.root) {
    return {
      kind: 'kept',
      runId,
      live: false,
      reason: `its journal ${journalPath} is of the one-run-per-folder layout of earlier releases, the state folder itself: delete it by hand once no run needs it`,
    };
  }
  let lock;
  try {
    lock = await acquireLock(dir, options.lock);
  } catch (error) {
    if (error instanceof RunnerError && error.code === 'STATE_LOCKED')
      return { kind: 'kept', runId, live: true, reason: `an apply holds its lock now (${error.message})` };
    throw error;
  }
  try {
    const { replay } = await replayRunJournal(journalPath);
    checkJournalIdentity(replay, where, journalPath);
    const [summary] = summarizeReplay(replay, dir, where.pipeline);
    if (summary === undefined) return { kind: 'missing', runId };
    const run = toPrunedRun(summary, where.pipeline, await folderBytes(dir));
    const lost = describeUnfinished(summary);
    if (lost !== undefined && options.force !== true)
      return { kind: 'kept', runId, live: false, reason: `it has ${lost}` };
    if (lost !== undefined) run.lost = lost;
    if (options.dryRun === true) return { kind: 'deleted', run };
    const aside = join(dirname(dir), `${SET_ASIDE_PREFIX}${basename(dir)}-${randomBytes(4).toString('hex')}`);
    await rename(dir, aside);
    await syncDirectory(dirname(dir));
    await options.seam?.('set-aside');
    await rm(aside, { recursive: true, force: true });
    return { kind: 'deleted', run };
  } finally {
    // The lock file went with the folder: releasing finds nothing of its own to remove.
    await lock.release();
  }
}

/** Whether a folder of a pipeline's state is a run's folder set aside for deletion. */
export function isSetAside(name: string): boolean {
  return name.startsWith(SET_ASIDE_PREFIX);
}

/**
 * Removes what a prune of the pipeline that stopped midway set aside (a crash between its rename and
 * its removal): folders no command reads, named `.pruned-*`.
 */
export async function removeSetAsideRuns(where: Omit<RunAddress, 'runId'>): Promise<void> {
  const pipelineDir = resolvePipelineDir(where);
  let entries;
  try {
    entries = await readdir(pipelineDir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry.isDirectory() && isSetAside(entry.name))
      await rm(join(pipelineDir, entry.name), { recursive: true, force: true }).catch(() => undefined);
  }
}

async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isFile()) bytes += (await stat(join(dir, entry.name)).catch(() => ({ size: 0 }))).size;
  }
  return bytes;
}
