import type { JobPhase } from '../service/types.js';

/**
 * Why the executor stopped creating new jobs. `service`: the service stayed unreachable or kept
 * refusing; `error`: an unexpected error (for example the journal could not be written).
 */
export type StopReason = 'credits' | 'budget' | 'auth' | 'interrupted' | 'service' | 'error';

/** How a run ended, for the CLI's exit code (`ok` 0, `failed` 1, `credits`/`budget` 3, `auth` 4, `interrupted` 130). */
export type ExitReason = 'ok' | 'failed' | 'credits' | 'budget' | 'auth' | 'interrupted';

/** What the executor reports while it runs; the CLI renders one line (CI) or a progress view per event. */
export type ExecutionEvent =
  | {
      type: 'job-skipped';
      id: string;
      reason: 'done' | 'failed' | 'deferred' | 'uncertain';
      detail: string;
      /** A job done earlier whose results this run still downloads: how many are owed. */
      owed?: number;
    }
  | { type: 'uploaded'; id: string; file: string; sha256: string; cached: boolean }
  | {
      type: 'job-created';
      id: string;
      attempt: number;
      jobId: string;
      /** True when an earlier create's answer was lost and the same key was sent again. */
      resent: boolean;
      creditCost?: number;
      chargeSource?: string;
      queuePosition?: number;
    }
  | {
      type: 'job-status';
      id: string;
      attempt: number;
      jobId: string;
      status: string;
      phase: JobPhase;
      progress?: number;
    }
  | {
      type: 'job-completed';
      id: string;
      attempt: number;
      jobId: string;
      resultUrls: string[];
      creditCost?: number;
    }
  | {
      type: 'job-failed';
      id: string;
      attempt: number;
      /** The service's failureKind, or the error code when the create was refused. */
      failureKind?: string;
      code?: string;
      message: string;
      advice?: string;
    }
  | {
      type: 'job-retry';
      id: string;
      attempt: number;
      nextAttempt: number;
      failureKind: string;
      delayMs: number;
    }
  | { type: 'job-deferred'; id: string; attempt: number; failureKind: string; notBefore: number }
  | { type: 'job-uncertain'; id: string; attempt: number; reason: string; action: 'skipped' | 'resent' }
  | { type: 'job-still-running'; id: string; attempt: number; jobId: string; status: string }
  | { type: 'downloaded'; id: string; url: string; file: string; bytes: number; sha256: string }
  | { type: 'concurrency-changed'; from: number; to: number; reason: string }
  | { type: 'stopped-creating'; reason: StopReason; message: string }
  | { type: 'warning'; id?: string; message: string };

/**
 * How one job ended in this run. `downloading`: the service finished (and charged) the job but not
 * every result is saved; a later apply or `apply --download-only` fetches the rest (#24.3, #20.8).
 */
export type JobOutcome =
  'done' | 'downloading' | 'failed' | 'pending' | 'creating' | 'still-running' | 'deferred' | 'uncertain';

export interface ExecutionSummary {
  counts: Record<JobOutcome, number> & { total: number; downloadFailures: number };
  /** Credits charged by creates in this run (refunds of failed jobs subtracted). */
  creditsSpent: number;
  /** Credits charged by every attempt in the state, this run included. */
  creditsSpentTotal: number;
  exitReason: ExitReason;
  /** Why creating stopped early, when it did. */
  stopReason?: StopReason;
  jobs: {
    id: string;
    outcome: JobOutcome;
    jobId?: string;
    files: string[];
    /**
     * Why a failed, deferred or uncertain job is not done: the service's failureKind and error text; for
     * a `downloading` job, why a result was not saved.
     */
    failureKind?: string;
    error?: string;
  }[];
}
