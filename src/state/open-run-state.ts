import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import type { JobState } from './job-state.js';
import { openJournal, type JournalWriter } from './journal.js';
import { acquireLock, type StateLock } from './lock.js';
import { replayJournal, type ReplayResult } from './replay.js';
import {
  ensureStateDir,
  journalPathFor,
  readJournalText,
  resolveStateDir,
  uploadCachePathFor,
} from './state-dir.js';
import { openUploadCache, type UploadCache } from './upload-cache.js';

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
 * Creates the state directory (0700), takes its lock, replays the journal, then opens it for
 * appending (which cuts a torn last line) and the manifest folder's upload cache. The lock is taken
 * before anything is read, so two runners never interleave.
 */
export async function openRunState(input: {
  manifestFile: string;
  pipeline: string;
  runId: string;
  stateDir?: string;
  /** @default `.runner/uploads.json` beside the manifest, shared by every run of that folder */
  uploadCachePath?: string;
  clock?: Clock;
}): Promise<RunState> {
  const dir = resolveStateDir(input);
  await ensureStateDir(dir);
  const lock = await acquireLock(dir);
  try {
    const replay = replayJournal(await readJournalText(dir));
    const journal = await openJournal(journalPathFor(dir), { clock: input.clock ?? systemClock });
    const cachePath = input.uploadCachePath ?? uploadCachePathFor(input.manifestFile);
    await mkdir(dirname(cachePath), { recursive: true, mode: 0o700 });
    const uploadCache = await openUploadCache(cachePath);
    const warnings = [...(lock.warning === undefined ? [] : [lock.warning]), ...replay.warnings];
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
