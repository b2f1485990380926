import { RunnerError } from '../errors.js';
import { deriveJobStatus, type AttemptState, type JobState } from './job-state.js';
import type { JournalRecord } from './records.js';

export interface ReplayResult {
  jobs: Map<string, JobState>;
  warnings: string[];
  /** `run` records, oldest first. */
  runs: Extract<JournalRecord, { type: 'run' }>[];
}

/**
 * Rebuilds every job's state from the journal text. Pure and linear in the journal's size.
 * A torn last line (a crash mid-write) is ignored with a warning; any other unreadable line is a
 * STATE_CORRUPT error naming its line number.
 */
export function replayJournal(text: string): ReplayResult {
  const jobs = new Map<string, JobState>();
  const warnings: string[] = [];
  const runs: ReplayResult['runs'] = [];
  const lines = text.split('\n');
  const lastIndex = lines.length - 1;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (line.trim() === '') continue;
    const record = parseLine(line);
    if (record === undefined) {
      // Only an unterminated last line can be a torn write.
      if (index === lastIndex) {
        warnings.push(
          `Ignored a torn last line (${line.length} characters) of the state journal: a crash interrupted its write.`,
        );
        continue;
      }
      throw new RunnerError(
        'STATE_CORRUPT',
        `The state journal is corrupt at line ${index + 1}: expected one JSON record, received ${JSON.stringify(line.slice(0, 80))}.`,
        {
          hint: 'Restore the state directory from a backup, or move it away to start over (jobs already created would be created again).',
        },
      );
    }
    applyRecord(jobs, runs, record);
  }
  for (const job of jobs.values()) job.status = deriveJobStatus(job.attempts);
  return { jobs, warnings, runs };
}

/**
 * Applies one record to live state (the executor journals a record, then applies it here, so its
 * in-memory view always equals what a replay of the journal would give).
 */
export function applyJournalRecord(jobs: Map<string, JobState>, record: JournalRecord): void {
  applyRecord(jobs, [], record);
  if ('id' in record) {
    const job = jobs.get(record.id);
    if (job !== undefined) job.status = deriveJobStatus(job.attempts);
  }
}

function parseLine(line: string): JournalRecord | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    const record = value as { type?: unknown };
    return typeof record.type === 'string' ? (value as JournalRecord) : undefined;
  } catch {
    return undefined;
  }
}

function applyRecord(jobs: Map<string, JobState>, runs: ReplayResult['runs'], record: JournalRecord): void {
  switch (record.type) {
    case 'run':
      runs.push(record);
      return;
    case 'interrupted':
      return;
    case 'intent': {
      const job = getJob(jobs, record.id);
      job.payloadHash = record.payloadHash;
      const existing = findAttempt(job, record.attempt);
      if (existing !== undefined) {
        existing.outcome = 'creating';
        return;
      }
      const attempt: AttemptState = {
        attempt: record.attempt,
        payloadHash: record.payloadHash,
        intentAt: record.at,
        outcome: 'creating',
        resultUrls: [],
      };
      if (record.idempotencyKey !== undefined) attempt.idempotencyKey = record.idempotencyKey;
      job.attempts.push(attempt);
      return;
    }
    case 'downloaded': {
      const job = getJob(jobs, record.id);
      job.downloads = job.downloads.filter((download) => download.url !== record.url);
      job.downloads.push({
        url: record.url,
        file: record.file,
        bytes: record.bytes,
        sha256: record.sha256,
        at: record.at,
      });
      return;
    }
    default:
      applyAttemptRecord(getAttempt(getJob(jobs, record.id), record.attempt, record.at), record);
  }
}

type AttemptRecord = Exclude<JournalRecord, { type: 'run' | 'interrupted' | 'intent' | 'downloaded' }>;

function applyAttemptRecord(attempt: AttemptState, record: AttemptRecord): void {
  switch (record.type) {
    case 'created':
      attempt.outcome = 'open';
      attempt.jobId = record.jobId;
      attempt.createdAt = record.at;
      if (record.creditCost !== undefined) attempt.creditCost = record.creditCost;
      if (record.estimatedCredits !== undefined) attempt.estimatedCredits = record.estimatedCredits;
      if (record.chargeSource !== undefined) attempt.chargeSource = record.chargeSource;
      return;
    case 'create-failed':
      attempt.outcome = record.final ? 'create-failed' : 'create-refused';
      attempt.error = `${record.code}: ${record.message}`;
      return;
    case 'status':
      attempt.status = record.status;
      if (record.progress !== undefined) attempt.progress = record.progress;
      return;
    case 'completed':
      attempt.outcome = 'done';
      attempt.completedAt = record.at;
      attempt.resultUrls = record.resultUrls;
      if (record.creditCost !== undefined) attempt.creditCost = record.creditCost;
      if (record.chargeSource !== undefined) attempt.chargeSource = record.chargeSource;
      return;
    case 'failed':
      attempt.outcome = record.willRetry ? 'retry' : 'failed';
      attempt.failureKind = record.failureKind;
      attempt.error = record.error;
      return;
    case 'deferred':
      attempt.outcome = 'deferred';
      attempt.failureKind = record.failureKind;
      attempt.notBefore = record.notBefore;
      return;
    case 'uncertain':
      attempt.outcome = 'uncertain';
      attempt.uncertainReason = record.reason;
      return;
  }
}

function getJob(jobs: Map<string, JobState>, id: string): JobState {
  let job = jobs.get(id);
  if (job === undefined) {
    job = { id, payloadHash: '', attempts: [], downloads: [], status: 'pending' };
    jobs.set(id, job);
  }
  return job;
}

function findAttempt(job: JobState, attempt: number): AttemptState | undefined {
  // Records almost always concern the latest attempt: look from the end.
  for (let index = job.attempts.length - 1; index >= 0; index--) {
    const candidate = job.attempts[index];
    if (candidate?.attempt === attempt) return candidate;
  }
  return undefined;
}

/** An attempt record without its intent (never written by the runner) still counts rather than vanishing. */
function getAttempt(job: JobState, attempt: number, at: number): AttemptState {
  const found = findAttempt(job, attempt);
  if (found !== undefined) return found;
  const created: AttemptState = {
    attempt,
    payloadHash: job.payloadHash,
    intentAt: at,
    outcome: 'creating',
    resultUrls: [],
  };
  job.attempts.push(created);
  return created;
}
