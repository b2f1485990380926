import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { JobState } from './job-state.js';
import { openJournal, type JournalWriter } from './journal.js';
import { acquireLock, type StateLock } from './lock.js';
import { checkJournalIdentity, locateRunState } from './locate-run-state.js';
import { replayJournalFile, type ReplayResult } from './replay.js';
import { ensureStateDir, journalPathFor, uploadCachePathFor } from './state-dir.js';
import { openUploadCache, UPLOAD_CACHE_FILE, type UploadCache } from './upload-cache.js';

/** Everything `runner apply` needs from the state directory, opened in a safe order. */
export interface RunState {
  readonly dir: string;
  readonly lock: StateLock;
  readonly journal: JournalWriter;
  /** Replayed jobs, to pass to `executePlan` as `state`. */
  readonly jobs: Map<string, JobState>;
  readonly runs: ReplayResult['runs'];
  /** A stale lock taken over, a torn last journal line ignored. */
  readonly warnings: string[];
  readonly uploadCache: UploadCache;
  /** Closes the journal and releases the lock. */
  close(): Promise<void>;
}

/**
 * Creates the run's state directory (`<root>/<pipeline>/<run>/`, 0700), takes its lock, replays the
 * journal (refusing one that belongs to another pipeline or run), then opens it for appending (which
 * cuts a torn last line; a new journal starts with its header) and the upload cache. The lock is
 * taken before anything is read, so two runners never interleave.
 */
export async function openRunState(input: {
  manifestFile: string;
  pipeline: string;
  runId: string;
  stateDir?: string;
  /**
   * @default `uploads.json` in the state root (`--state-dir`, else `.runner/` beside the manifest),
   * shared by every run there
   */
  uploadCachePath?: string;
  clock?: Clock;
}): Promise<RunState> {
  const location = await locateRunState(input);
  const { dir } = location;
  await ensureStateDir(dir);
  const lock = await acquireLock(dir);
  try {
    const journalPath = journalPathFor(dir);
    const replay = await replayJournalFile(journalPath);
    checkJournalIdentity(replay, input, journalPath);
    const journal = await openJournal(journalPath, {
      clock: input.clock ?? systemClock,
      identity: { pipeline: input.pipeline, runId: input.runId },
    });
    const cachePath =
      input.uploadCachePath ??
      (input.stateDir === undefined
        ? uploadCachePathFor(input.manifestFile)
        : join(location.root, UPLOAD_CACHE_FILE));
    await mkdir(dirname(cachePath), { recursive: true, mode: 0o700 });
    const uploadCache = await openUploadCache(cachePath);
    const warnings = [
      ...location.warnings,
      ...(lock.warning === undefined ? [] : [lock.warning]),
      ...replay.warnings,
    ];
    return {
      dir,
      lock,
      journal,
      jobs: replay.jobs,
      runs: replay.runs,
      warnings,
      uploadCache,
      async close() {
        try {
          await journal.close();
        } finally {
          await lock.release();
        }
      },
    };
  } catch (error) {
    await lock.release();
    throw error;
  }
}
