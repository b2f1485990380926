import type { Clock } from '../clock.js';
import type { JobState } from './job-state.js';
import type { JournalWriter } from './journal.js';
import type { AcquireLockOptions } from './lock.js';
import type { ListRunsInput, RunsView } from './list-runs.js';
import type { RunStateReading } from './read-run-state.js';
import type { ReplayResult } from './replay.js';
import type { StateSnapshots } from './snapshot-schedule.js';
import type { RunAddress } from './state-dir.js';
import type { UploadCache } from './upload-cache.js';

/**
 * The right to write one run's state: the folder's lock file, or a lease row in PostgreSQL. Whoever
 * holds it is the only process that may create the run's jobs.
 */
export interface RunLease {
  /** Set when a stale lock or an expired lease of a dead process was taken over. */
  readonly warning: string | undefined;
  /**
   * Throws STATE_LOCKED unless this process still holds the lock or lease: called before a create, so
   * a process that lost it (paused, cut off, taken over) never pays for a job.
   */
  verify(): Promise<void>;
  /**
   * Throws STATE_LOCKED when this process already knows it lost the lock or lease (or it lapsed
   * while the process was paused). No I/O: cheap before every journal write. Optional.
   */
  assertHeld?(): void;
  /** Gives the lock or lease up; later writes through it are refused. */
  release(): Promise<void>;
}

/** Everything `runner apply` needs of one run's state, opened in a safe order (the lock first). */
export interface RunState {
  /** Where the state lives, for messages: the run's folder, or the database URL (no password). */
  readonly dir: string;
  readonly lock: RunLease;
  /** Appends records durably and in order: each is stored before `append` resolves. */
  readonly journal: JournalWriter;
  /** Replayed jobs, to pass to `executePlan` as `state`. */
  readonly jobs: Map<string, JobState>;
  readonly runs: ReplayResult['runs'];
  /** A stale lock taken over, a torn last journal line ignored. */
  readonly warnings: string[];
  readonly uploadCache: UploadCache;
  /** Writes the snapshots of the run's state: pass to `executePlan` as `snapshots`. */
  readonly snapshots: StateSnapshots;
  /**
   * Closes the journal (after a snapshot being written) and releases the lock. With
   * `discardIfUnused`, a run this open started and that recorded nothing (an apply refused before its
   * first record: invalid input, over the budget, declined) leaves no state behind, so `runs` does not
   * list a run that never ran. A backend may keep it (PostgreSQL does).
   */
  close(options?: { discardIfUnused?: boolean }): Promise<void>;
}

/** What `openRun` needs beyond the run's address. */
export interface OpenRunInput extends RunAddress {
  /**
   * @default `uploads.json` in the state root (`--state-dir`, else `.runner/` beside the manifest),
   * shared by every run there
   */
  uploadCachePath?: string;
  clock?: Clock;
  /** Fewest records between snapshots during the run. @default DEFAULT_SNAPSHOT_EVERY */
  snapshotEvery?: number;
  /** The folder lock's lease timing and identity (tests fake containers). */
  lock?: AcquireLockOptions;
  /** How long a lease lasts without a heartbeat (PostgreSQL). @default DEFAULT_LEASE_TTL_MS */
  leaseTtlMs?: number;
}

/**
 * Where runs' state lives: one interface, two backends (the local folder, PostgreSQL). Every command
 * reads and writes a run's state through it; see `stateStoreFor`.
 */
export interface StateStore {
  /** `folder` or `postgres`. */
  readonly kind: 'folder' | 'postgres';
  /** Takes the run's lock or lease, replays its state and opens it for appending. */
  openRun(input: OpenRunInput): Promise<RunState>;
  /** Reads a run's state without its lock (plan, status, report). */
  readRun(where: RunAddress): Promise<RunStateReading>;
  /** Every run of a pipeline that has state (`runner runs`). */
  listRuns(input: ListRunsInput & { stateUrl?: string }): Promise<RunsView>;
  /** When the run's first apply started (clock ms), a hint read without the lock; undefined if none. */
  readRunStart(where: RunAddress): Promise<number | undefined>;
}
