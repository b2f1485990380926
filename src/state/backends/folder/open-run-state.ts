import { mkdir, rmdir, unlink } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { systemClock } from '../../../clock.js';
import { openJournal } from './journal.js';
import { acquireLock } from './lock.js';
import { locateRunState } from './locate-run-state.js';
import { checkJournalIdentity } from '../../journal-identity.js';
import { readMovedMark } from './moved-run.js';
import { moveCommand, movedRunError } from '../../moved-run-hint.js';
import { replayRunJournal } from './replay-run-journal.js';
import { writeSnapshot } from './snapshot-file.js';
import { createSnapshotSchedule } from '../../snapshot-schedule.js';
import { uploadCachePathFor } from '../../state-dir.js';
import { ensureStateDir } from './locate-run-state.js';
import { journalPathFor } from './journal.js';
import { adoptLateRecords, createFolderLateAnswers, unansweredCreates } from './late-records.js';
import type { OpenRunInput, RunState } from '../../state-store.js';
import { openUploadCache, UPLOAD_CACHE_FILE } from '../../upload-cache.js';

/**
 * Creates the run's state directory (`<root>/<pipeline>/<run>/`, 0700), takes its lock, replays the
 * journal (from its snapshot when there is a good one; refusing a journal that belongs to another
 * pipeline or run), then opens it for appending (which cuts a torn last line; a new journal starts
 * with its header) and the upload cache. The lock is taken before anything is read, so two runners
 * never interleave.
 */
export async function openRunState(input: OpenRunInput): Promise<RunState> {
  const location = await locateRunState(input);
  const { dir } = location;
  const clock = input.clock ?? systemClock;
  await ensureStateDir(dir);
  const lock = await acquireLock(dir, input.lock);
  try {
    const moved = await readMovedMark(dir);
    if (moved !== undefined) {
      throw movedRunError(input, dir, {
        ...moved,
        applyThere: `--state ${moved.to} (or RUNNER_STATE_URL)`,
        back: moveCommand(['state', 'pull'], input, ['--state', moved.to]),
      });
    }
    const journalPath = journalPathFor(dir);
    const reading = await replayRunJournal(journalPath);
    const { replay } = reading;
    checkJournalIdentity(replay, input, journalPath);
    const journal = await openJournal(journalPath, {
      clock,
      identity: { pipeline: input.pipeline, runId: input.runId },
      lines: reading.end.lines,
    });
    // What a runner whose lock was taken over learned of its creates in flight: adopted under the lock.
    const late = await adoptLateRecords(journalPath, replay.jobs, journal);
    const snapshots = createSnapshotSchedule({
      journal,
      base: reading.checkpoint,
      uncovered: reading.end.lines - (reading.snapshot?.lines ?? 0) + late.adopted,
      ...(input.snapshotEvery === undefined ? {} : { every: input.snapshotEvery }),
      clock,
      write: (content) => writeSnapshot(journal.path, content),
    });
    const cachePath =
      input.uploadCachePath ??
      (input.stateDir === undefined
        ? uploadCachePathFor(input.manifestFile)
        : join(location.root, UPLOAD_CACHE_FILE));
    await mkdir(dirname(cachePath), { recursive: true, mode: 0o700 });
    const uploadCache = await openUploadCache(cachePath);
    // A lock taken over from a runner that may be alive: its creates in flight may still be answered.
    const takenOver = lock.takenOver;
    const lateAnswers =
      takenOver === undefined
        ? undefined
        : createFolderLateAnswers({
            journalPath,
            journal,
            takenOver,
            inFlight: unansweredCreates(replay.jobs),
            now: () => clock.now(),
          });
    const warnings = [
      ...location.warnings,
      ...(lock.warning === undefined ? [] : [lock.warning]),
      ...replay.warnings,
      ...late.warnings,
    ];
    return {
      dir,
      lock,
      journal,
      jobs: replay.jobs,
      runs: replay.runs,
      warnings,
      uploadCache,
      snapshots,
      ...(lateAnswers === undefined ? {} : { lateAnswers }),
      async close(options) {
        try {
          await journal.close();
          // Only the header this open wrote: nothing of the run happened. Removed while the lock is
          // still held, so no other apply's journal can be the one removed.
          if (
            options?.discardIfUnused === true &&
            journal.header !== undefined &&
            journal.position()?.lines === 1
          )
            await unlink(journalPath);
        } finally {
          await lock.release();
        }
        if (options?.discardIfUnused === true) await removeEmptyFolders(dir, location.root);
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * Removes `dir` and the folders above it up to `root` (not `root` itself) while they are empty: the
 * run's and the pipeline's folders an unused open made. A folder another apply wrote meanwhile is not
 * empty and stays.
 */
async function removeEmptyFolders(dir: string, root: string): Promise<void> {
  for (
    let folder = dir;
    relative(root, folder) !== '' && !relative(root, folder).startsWith('..');
    folder = dirname(folder)
  ) {
    try {
      await rmdir(folder);
    } catch {
      return;
    }
  }
}
