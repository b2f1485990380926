import type { Clock } from '../clock.js';
import type { SharedRateLimit } from '../service/rate-limit-gate.js';
import type { JobState } from './job-state.js';
import type { JournalWriter } from './journal-writer.js';
import type { AcquireLockOptions } from './lock-options.js';
import type { ListRunsInput, RunsView } from './run-summary.js';
import type { RunStateReading } from './run-reading.js';
import type { OtherRunsJobs } from './other-runs-jobs.js';
import type { DeleteRunOptions, DeleteRunResult } from './prune-runs.js';
import type { FirstRunRecord } from './run-reading.js';
import type { ReplayResult } from './replay.js';
import type { StateSnapshots } from './snapshot-schedule.js';
import type { RunAddress } from './state-dir.js';
import type { UploadCache } from './upload-cache.js';

/** {@link RunLease.verify}'s options. */
export interface VerifyOptions {
  /**
   * A write the database fences by this lease (the create's intent) comes before anything is paid:
   * a lease renewed recently enough needs no round trip now (PostgreSQL). @default false
   */
  fencedWriteFollows?: boolean;
}

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
  verify(options?: VerifyOptions): Promise<void>;
  /**
   * Throws STATE_LOCKED when this process already knows it lost the lock or lease (or it lapsed
   * while the process was paused). No I/O: cheap before every journal write. Optional.
   */
  assertHeld?(): void;
  /** Gives the lock or lease up; later writes through it are refused. */
  release(): Promise<void>;
}

/** What a claim found (see {@link RunCoordination.claim}). */
export type ClaimResult =
  | {
      kind: 'claimed';
      id: string;
      /** The job's records as stored, oldest first (JSON): its state is rebuilt from them. */
      records: string[];
      /** The machine that held the job before, when one did (it stopped, or its lease expired). */
      from?: string;
      /** Holders whose leases expired and were ended by this claim. */
      tookOver: string[];
    }
  /** Other processes hold the run's open-job slots or its unfinished jobs: look again later. */
  | { kind: 'wait'; tookOver: string[] }
  /** Nothing left that this process could claim. */
  | { kind: 'none'; tookOver: string[] };

/**
 * How the processes applying one run together share it (PostgreSQL; issue 17.4): every job is
 * claimed by one process at a time, with one of the account's open-job slots counted across all of
 * them, and a claim of a process whose lease expired passes to the others with its slot.
 */
export interface RunCoordination {
  /** This process's machine name, recorded with its lease and shown by `status`. */
  readonly machine: string;
  /**
   * Joins the run's live processes: refused (STATE_MISMATCH) when one runs another plan. The first
   * one of a group starts the run's job queue afresh. `account`: the account the run pays from
   * (`accountOfKey`), whose other runs in this state share its open-job slots and 429 pauses (#31.5);
   * absent (`--simulate`), the run's slots are its own.
   */
  join(planIdentity: string, account?: string): Promise<void>;
  /** Adds jobs, in the plan's order, to the run's queue; a job already there is left as it is. */
  enqueue(ids: readonly string[]): Promise<void>;
  /**
   * Claims the next job with an open-job slot, while fewer than `limit` slots are held across the
   * processes (a job left by a gone process comes with its slot). Throws STATE_LOCKED once this
   * process's lease is lost.
   */
  claim(limit: number): Promise<ClaimResult>;
  /**
   * Keeps the claim's open-job slot for `ms` from now, whatever `releaseSlot` and `finish` do
   * meanwhile: a create whose answer was lost may have made a job that is open on the service
   * (issue #31.6), so no process of the run creates another in its place until it must be over.
   */
  keepSlot(id: string, ms: number): Promise<void>;
  /**
   * Gives the claim's open-job slot up (the job's run ended) and keeps the claim (its results are
   * being downloaded): a process that dies now leaves the job to another, which downloads them.
   */
  releaseSlot(id: string): Promise<void>;
  /** Gives a claim and its slot up: `finished` for the processes running now, else free for another. */
  finish(id: string, finished: boolean): Promise<void>;
  /** Resolves when another process may have freed a slot or a job (or after a short while). */
  waitForChange(signal?: AbortSignal): Promise<void>;
  /**
   * Credits the other processes' creates were charged (or estimated at) since this one opened the
   * run, refunds not deducted: what a cap must count beside this process's own spending. Each create
   * counts at the latest figure its records give: the credits its intent reserved while it is on its
   * way, its answer's cost (or estimate), and the cost its polled job reports once known (#31.4).
   */
  othersSpent(): Promise<number>;
  /**
   * Runs `task` with what the others spent while no other process of the run is inside it (a lock in
   * the database): a create's reservation is checked against the cap and its intent journaled in it,
   * so two machines never both take the cap's last credits (issue #31.4).
   */
  withSpendingLock<T>(task: (othersSpent: number) => Promise<T>): Promise<T>;
  /**
   * Whether this process may send the first create of `model` under a cap (`SharedPrices.probeModel`
   * in `execute/budget.ts`): a model's price one machine saw is every machine's, and the first job of
   * a model not yet priced is sent by one machine at a time.
   */
  probeModel(
    model: string,
  ): Promise<{ kind: 'priced'; over?: number } | { kind: 'probe' } | { kind: 'wait' }>;
  /** Shares that `model`'s credit price was seen (`over`: the most one job was charged above its estimate). */
  shareModelPrice(model: string, over: number | undefined): Promise<void>;
  /** This process's first job of `model` ended without showing a price: another may send one. */
  endModelProbe(model: string): Promise<void>;
  /**
   * Every job another process wrote a record of since this one joined, as all of its records have it
   * now: with what this process replayed at its start and ran itself, the whole run.
   */
  readOthersJobs(): Promise<Map<string, JobState>>;
  /**
   * The jobs another process recorded a saved result of after `cursor` (after this process joined,
   * when undefined), each as all of its records have it now, and the cursor to read on from: what a
   * machine fetches into its own output while the run goes on (#30.2), a few rows per call however
   * long the run. A record committed out of sequence order may be missed: `readOthersJobs` at the
   * end of the run is the whole answer.
   */
  readOthersSavedSince(cursor: string | undefined): Promise<{ jobs: Map<string, JobState>; cursor: string }>;
  /**
   * Who sent the latest create of job `id` (the runner whose token wrote its latest intent), when that
   * is another runner: its machine and how long ago, on the database's clock, its lease ended (0 while
   * it lives). A create it sent may still be answered, and the answer stored late (#31.9).
   */
  unansweredCreate(id: string): Promise<{ machine: string; endedAgoMs: number } | undefined>;
  /** The job's records as stored now, oldest first (JSON). */
  readJobRecords(id: string): Promise<string[]>;
  /**
   * The account's 429 pauses, shared with every machine of the account on this state (#31.5), once
   * joined with an account: give it to the service client's `shareRateLimit`.
   */
  sharedRateLimit(): SharedRateLimit | undefined;
  close(): Promise<void>;
}

/**
 * Where a runner that took a run over finds the answers to creates without an idempotency key that
 * the runner before it sent (#31.9): that runner's lease ended moments ago, and its answer, when it
 * comes, is stored late (a PostgreSQL row, the folder's `late.jsonl`). The executor waits for it
 * (`execute/late-answer.ts`, the same rule for both backends) before calling the create uncertain.
 */
export interface LateAnswers {
  /**
   * Who sent the latest create of job `id`, when another runner whose lease ended may still store
   * its answer: its machine and how long ago its lease ended (0 while it lives). Undefined otherwise.
   */
  unansweredCreate(id: string): Promise<{ machine: string; endedAgoMs: number } | undefined>;
  /**
   * Job `id` (whose state this runner holds: `job`) with an answer to `attempt` stored since (adopted
   * where the backend must, with a replay's checks), or undefined while there is none.
   */
  lookForAnswer(id: string, job: JobState, attempt: number): Promise<JobState | undefined>;
}

/**
 * Everything `runner apply` needs of one run's state, opened in a safe order (the lock first): passed
 * to `executePlan` whole (`ExecuteDeps.run`), which schedules the jobs by what it holds (`coordination`).
 */
export interface RunState {
  /** Where the state lives, for messages: the run's folder, or the database URL (no password). */
  readonly dir: string;
  readonly lock: RunLease;
  /** Appends records durably and in order: each is stored before `append` resolves. */
  readonly journal: JournalWriter;
  /** Replayed jobs (the executor copies one before its first change). */
  readonly jobs: Map<string, JobState>;
  readonly runs: ReplayResult['runs'];
  /** A stale lock taken over, a torn last journal line ignored. */
  readonly warnings: string[];
  readonly uploadCache: UploadCache;
  /**
   * With a shared backend (PostgreSQL), how this process shares the run with others applying it at
   * the same time: joined before the run is executed, the executor runs only the jobs this process
   * claims, in the account's open-job slots counted across the processes. Undefined for the folder:
   * one process runs every job, under its own limit.
   */
  readonly coordination?: RunCoordination;
  /** Writes the snapshots of the run's state, told of every record the executor applies. */
  readonly snapshots: StateSnapshots;
  /**
   * The folder's, when its lock was taken over from a runner that may still be sending creates: the
   * executor waits for them (a shared run's come from its `coordination`).
   */
  readonly lateAnswers?: LateAnswers;
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
  /** The machine name records show (PostgreSQL). @default `RUNNER_MACHINE`, else host and pid */
  machine?: string;
}

/** What a read of a run includes beyond its jobs. */
export interface ReadRunIncludes {
  /**
   * Which machine did each job (`replay.machines`), for `status` and `report`: on a run several
   * machines applied, finding each job's latest writer reads every record again, so only the commands
   * that show it ask.
   */
  machines?: boolean;
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
  readRun(where: RunAddress, include?: ReadRunIncludes): Promise<RunStateReading>;
  /** Every run of a pipeline that has state (`runner runs`), but `except` (a run id). */
  listRuns(input: ListRunsInput & { stateUrl?: string }): Promise<RunsView>;
  /** When the run's first apply started (clock ms), a hint read without the lock; undefined if none. */
  readRunStart(where: RunAddress): Promise<number | undefined>;
  /**
   * The run's first `run` record (its start, the output folder it started with): a hint read
   * without the lock, for the checks made before it; undefined if none or unreadable.
   */
  readFirstRunRecord(where: RunAddress): Promise<FirstRunRecord | undefined>;
  /**
   * What the pipeline's other runs in this state hold (read without their locks): a create of this
   * run whose answer was lost never adopts one of their jobs (issue #24.8).
   */
  otherRunsJobs(where: RunAddress): Promise<OtherRunsJobs>;
  /**
   * Deletes a run's state, all of it or none (`runner state prune`): kept, and said why, while an apply
   * holds its lock or lease (always), or while it has paid work unfinished (open jobs, a lost create's
   * answer, results not saved) unless `force`. State only: results are never touched. A crash midway
   * leaves the run whole or reading as gone, never half of it.
   */
  deleteRun(where: RunAddress, options?: DeleteRunOptions): Promise<DeleteRunResult>;
  /**
   * Removes what deletions of the pipeline's runs stopped midway left (the folder: run folders set
   * aside, which no command reads). PostgreSQL deletes in one transaction and leaves nothing.
   */
  removeDeletionLeftovers?(where: Omit<RunAddress, 'runId'>): Promise<void>;
}
