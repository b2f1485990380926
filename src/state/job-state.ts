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
  /** The attempt a reviewer rejected that this one replaces, and their note (`--replace-from`). */
  rejectedAttempt?: number;
  rejectionNote?: string;
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
  /** The machine that saved it (`RUNNER_MACHINE` or host and pid), when recorded (#30.2). */
  machine?: string;
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
  /**
   * Present on a job read from a state snapshot whose attempts are still on disk
   * (src/state/stored-job.ts): its summary as stored, or undefined once it was read whole.
   */
  storedSummary?(): JobSummary | undefined;
}

/**
 * What the budget, the plan and the executor need to pass a finished job by, without its attempts:
 * a snapshot stores it before each job's whole state (src/state/snapshot-format.ts).
 */
export interface JobSummary {
  id: string;
  payloadHash: string;
  status: JobStatus;
  attempts: number;
  /** The latest attempt's number, job id, and payload hash when it is not the job's. */
  lastAttempt?: number;
  lastJobId?: string;
  lastPayloadHash?: string;
  /** {@link sumChargedCredits} and {@link sumBudgetedCredits}. */
  charged: number;
  budgeted: number;
  /**
   * The downloaded files. When `complete`, in the order of the latest attempt's result URLs, and
   * `downloadFiles` holds their order of download if that differs.
   */
  files: string[];
  downloadFiles?: string[];
  /** Done, nothing superseded to move aside, and every result URL of the latest attempt downloaded. */
  complete: boolean;
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
  return job.storedSummary?.()?.charged ?? sumCredits(job, (attempt) => attempt.creditCost ?? 0);
}

/**
 * What a budget must count for a job: {@link sumChargedCredits}, with the plan's estimate standing in
 * for a cost the service did not report (a video create may answer with the job id only).
 */
export function sumBudgetedCredits(job: JobState): number {
  return (
    job.storedSummary?.()?.budgeted ??
    sumCredits(job, (attempt) => attempt.creditCost ?? attempt.estimatedCredits ?? 0)
  );
}

/** The job's {@link JobSummary}: as stored for a job still on disk, else made from its state. */
export function summarizeJob(job: JobState): JobSummary {
  const stored = job.storedSummary?.();
  if (stored !== undefined) return stored;
  const last = job.attempts.at(-1);
  const summary: JobSummary = {
    id: job.id,
    payloadHash: job.payloadHash,
    status: job.status,
    attempts: job.attempts.length,
    charged: sumChargedCredits(job),
    budgeted: sumBudgetedCredits(job),
    files: job.downloads.map((download) => download.file),
    complete: false,
  };
  if (last !== undefined) {
    summary.lastAttempt = last.attempt;
    if (last.jobId !== undefined) summary.lastJobId = last.jobId;
    if (last.payloadHash !== job.payloadHash) summary.lastPayloadHash = last.payloadHash;
  }
  const urlFiles =
    last?.outcome === 'done' && (job.superseded ?? []).length === 0 ? filesOfUrls(job, last) : undefined;
  if (urlFiles !== undefined) {
    summary.complete = true;
    if (
      !urlFiles.every((file, index) => file === summary.files[index]) ||
      urlFiles.length !== summary.files.length
    ) {
      summary.downloadFiles = summary.files;
      summary.files = urlFiles;
    }
  }
  return summary;
}

/** The file of each result URL of `last`, in their order; undefined when one is not downloaded. */
function filesOfUrls(job: JobState, last: AttemptState): string[] | undefined {
  const files: string[] = [];
  for (const url of last.resultUrls) {
    const download = job.downloads.find((candidate) => candidate.url === url);
    if (download === undefined) return undefined;
    files.push(download.file);
  }
  return files;
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
