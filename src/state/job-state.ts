import type { ChargeSource } from '../service/types.js';
import type { IntentRecord } from './records.js';

/**
 * Where a job stands after replaying the journal:
 * - `pending`: nothing sent yet, or a new attempt is due (retry, out of credits earlier)
 * - `creating`: an intent was journaled but no answer (the create may or may not exist)
 * - `open`: the service gave a job id; not finished
 * - `done`, `failed`: finished (failed: not re-sent unless the payload changes or `retryFailed`)
 * - `deferred`: temporary failure; retry after `notBefore`
 * - `uncertain`: a create whose answer was lost and that cannot be safely re-sent
 */
export type JobStatus = 'pending' | 'creating' | 'open' | 'done' | 'failed' | 'deferred' | 'uncertain';

/** What one attempt (one create with its own idempotency key) came to. */
export type AttemptOutcome =
  | 'creating'
  | 'open'
  | 'done'
  | 'failed'
  | 'retry'
  | 'create-failed'
  | 'create-refused'
  | 'deferred'
  | 'uncertain';

export interface AttemptState {
  attempt: number;
  payloadHash: string;
  /** What the attempt asked for, when its intent journaled it: a later plan shows what changed. */
  payload?: IntentRecord['payload'];
  idempotencyKey?: string;
  /** Time of the FIRST intent of this attempt: the service's key window counts from there. */
  intentAt: number;
  outcome: AttemptOutcome;
  jobId?: string;
  createdAt?: number;
  /** When the service was seen to complete the job: result links expire 7 days later (api-notes). */
  completedAt?: number;
  /** The service's status string, last seen. */
  status?: string;
  progress?: number;
  failureKind?: string;
  error?: string;
  resultUrls: string[];
  creditCost?: number;
  /** The plan's estimate when the create answer carried no `creditCost`. */
  estimatedCredits?: number;
  chargeSource?: ChargeSource;
  notBefore?: number;
  uncertainReason?: string;
}

export interface DownloadState {
  url: string;
  file: string;
  bytes: number;
  sha256: string;
  at: number;
}

export interface JobState {
  id: string;
  /** Payload hash of the latest attempt. */
  payloadHash: string;
  attempts: AttemptState[];
  /** Files of the latest attempt that made any (a new attempt supersedes them, #7.4). */
  downloads: DownloadState[];
  /** Files of earlier attempts, replaced by a new attempt: moved aside when it downloads its own. */
  superseded?: SupersededDownload[];
  status: JobStatus;
}

export interface SupersededDownload extends DownloadState {
  /** The attempt whose result the file was. */
  attempt: number;
}

/** Derives a job's status from its last attempt. */
export function deriveJobStatus(attempts: readonly AttemptState[]): JobStatus {
  const last = attempts.at(-1);
  if (last === undefined) return 'pending';
  switch (last.outcome) {
    case 'creating':
      return 'creating';
    case 'open':
      return 'open';
    case 'done':
      return 'done';
    case 'failed':
    case 'create-failed':
      return 'failed';
    case 'retry':
    case 'create-refused':
      return 'pending';
    case 'deferred':
      return 'deferred';
    case 'uncertain':
      return 'uncertain';
  }
}

/** Credits actually charged for a job: attempts that got a job id and did not fail (failed jobs are refunded). */
export function sumChargedCredits(job: JobState): number {
  return sumCredits(job, (attempt) => attempt.creditCost ?? 0);
}

/**
 * What a budget must count for a job: {@link sumChargedCredits}, with the plan's estimate standing in
 * for a cost the service did not report (a video create may answer with the job id only).
 */
export function sumBudgetedCredits(job: JobState): number {
  return sumCredits(job, (attempt) => attempt.creditCost ?? attempt.estimatedCredits ?? 0);
}

function sumCredits(job: JobState, costOf: (attempt: AttemptState) => number): number {
  let total = 0;
  for (const attempt of job.attempts) {
    if (attempt.jobId === undefined) continue;
    if (attempt.outcome === 'failed' || attempt.outcome === 'retry' || attempt.outcome === 'deferred')
      continue;
    total += costOf(attempt);
  }
  return total;
}
