import type { ChargeSource } from '../service/types.js';

/**
 * The journal's record types, one JSON object per line. Every record carries `at` (clock ms) and a
 * `type`. The order of records is the order of events: a record is durable (fsynced) before the step
 * that depends on it runs, so a crash leaves a journal that replays to a consistent state.
 */
export type JournalRecord =
  | RunRecord
  | IntentRecord
  | CreatedRecord
  | CreateFailedRecord
  | StatusRecord
  | CompletedRecord
  | FailedRecord
  | DeferredRecord
  | DownloadedRecord
  | UncertainRecord
  | InterruptedRecord
  | JournalHeaderRecord;

/**
 * The first line of a journal (format version 2 on): which pipeline and run it belongs to, so it is
 * never opened for another. Journals of version 1 (the first release) have no header.
 */
export interface JournalHeaderRecord {
  type: 'journal';
  at: number;
  version: number;
  pipeline: string;
  runId: string;
}

/** A run (one `runner apply`) started. */
export interface RunRecord {
  type: 'run';
  at: number;
  runId: string;
  pipeline: string;
  pid: number;
  manifestFile: string;
  /**
   * The folder this apply wrote the run's results, results index and report to (absolute). Absent in
   * journals of earlier releases; `status`, `report` and a resumed apply use the latest one given.
   */
  outputDir?: string;
  /**
   * The machine that resolved `outputDir` (`RUNNER_MACHINE`, else the host name): another machine
   * never takes it as its own folder, it resolves its own (#30.1).
   */
  host?: string;
  /** How many jobs this apply's plan had (the run's size, where the journal knows only those started). */
  plannedJobs?: number;
  /** False when this apply ran with `--no-download` (results are not owed to the output folder). */
  download?: boolean;
  /** The account this apply paid from (`accountOfKey`: a hash, never the key); #31.7. */
  account?: string;
  /**
   * Which repository's pipeline this is (`projectIdentity`: runner.config.yaml's `project:`, else the
   * `origin` remote and the manifest's path in the repository); #31.13. Absent in earlier releases.
   */
  project?: string;
}

/** Written and fsynced BEFORE the create request is sent. */
export interface IntentRecord {
  type: 'intent';
  at: number;
  id: string;
  attempt: number;
  /** Absent for endpoints that do not honour a key (video kinds). */
  idempotencyKey?: string;
  payloadHash: string;
  /** What was asked for (src/plan/payload-diff.ts), so a later plan can show what changed. */
  payload?: { kind: string; model: string; prompt?: string; params: Record<string, unknown> };
  /**
   * Set on the attempt `apply --replace-from` sends: the attempt a reviewer rejected (#19.3), which
   * this one replaces; the report shows that attempt's files as "rejected → replaced by attempt N".
   */
  rejectedAttempt?: number;
  /** The reviewer's note on the rejected attempt, when there was one. */
  rejectionNote?: string;
  /**
   * The credits the create reserved under a cap, while its answer is awaited: the other machines of a
   * shared run count them against the cap until the answer's cost replaces them (issue #31.4).
   */
  estimatedCredits?: number;
}

/** The service answered the create with a job id. */
export interface CreatedRecord {
  type: 'created';
  at: number;
  id: string;
  attempt: number;
  jobId: string;
  creditCost?: number;
  /** The plan's estimate, journaled when the answer carries no `creditCost`: the budget counts it. */
  estimatedCredits?: number;
  chargeSource?: ChargeSource;
  queuePosition?: number;
  /**
   * Written by a runner whose lease had ended when the answer came (#31.9): what it learned, kept
   * outside the lease's fence for the runner that took the run over. One that no longer fits the
   * attempt's history is passed over with a warning, never an error.
   */
  late?: true;
}

/**
 * The create provably made nothing (an HTTP 4xx). `final` false means the job may be created later
 * (402: out of credits); true means it is failed until its payload changes (400).
 */
export interface CreateFailedRecord {
  type: 'create-failed';
  at: number;
  id: string;
  attempt: number;
  code: string;
  message: string;
  final: boolean;
  /**
   * Written by a runner whose lease had ended when the answer came (#31.9): what it learned, kept
   * outside the lease's fence for the runner that took the run over. One that no longer fits the
   * attempt's history is passed over with a warning, never an error.
   */
  late?: true;
}

/** The polled status changed. */
export interface StatusRecord {
  type: 'status';
  at: number;
  id: string;
  attempt: number;
  status: string;
  progress?: number;
  /**
   * What the polled job reports it was charged, journaled when it differs from what the attempt was
   * counted at (a create answer with only `jobId`, issue #31.4): the budget counts it from then on.
   */
  creditCost?: number;
  chargeSource?: ChargeSource;
}

export interface CompletedRecord {
  type: 'completed';
  at: number;
  id: string;
  attempt: number;
  resultUrls: string[];
  creditCost?: number;
  chargeSource?: ChargeSource;
}

/** The job failed. `willRetry` true: a new attempt follows (the job is pending, not failed). */
export interface FailedRecord {
  type: 'failed';
  at: number;
  id: string;
  attempt: number;
  failureKind: string;
  error: string;
  willRetry: boolean;
}

/** The job failed with a temporary kind; retry not before `notBefore` (clock ms). */
export interface DeferredRecord {
  type: 'deferred';
  at: number;
  id: string;
  attempt: number;
  failureKind: string;
  notBefore: number;
}

export interface DownloadedRecord {
  type: 'downloaded';
  at: number;
  id: string;
  url: string;
  /**
   * The result's key relative to the run's output root (`hero.png`), so any machine finds it in its
   * own output (#30.1); journals of earlier releases hold the absolute path on the machine that saved it.
   */
  file: string;
  /** The machine that saved it, for "saved on machine M at …" where it is missing (#30.2). */
  machine?: string;
  bytes: number;
  sha256: string;
}

/** A create whose answer was lost and that cannot be safely re-sent. */
export interface UncertainRecord {
  type: 'uncertain';
  at: number;
  id: string;
  attempt: number;
  reason: string;
}

export interface InterruptedRecord {
  type: 'interrupted';
  at: number;
  reason?: string;
}

/** Records as a caller passes them: `at` is stamped by the writer's clock when omitted. */
export type JournalEntry = JournalRecord extends infer R
  ? R extends JournalRecord
    ? Omit<R, 'at'> & { at?: number }
    : never
  : never;
