import { closeSync, readSync } from 'node:fs';
import { RunnerError } from '../errors.js';
import {
  deriveJobStatus,
  type AttemptOutcome,
  type AttemptState,
  type DownloadState,
  type JobState,
  type JobStatus,
  type JobSummary,
  type SupersededDownload,
} from './job-state.js';

/**
 * A snapshot file held open while jobs read from it keep their state on disk. The descriptor, not the
 * path: a later snapshot is renamed over the path, and the jobs' offsets are into this file.
 */
export class SnapshotFile {
  /** Bytes read at once: jobs are read in snapshot order, so one read serves hundreds of them. */
  static readonly WINDOW_BYTES = 1024 * 1024;
  private buffer = Buffer.allocUnsafe(SnapshotFile.WINDOW_BYTES);
  private window = Buffer.alloc(0);
  private windowStart = 0;

  constructor(
    readonly path: string,
    readonly fd: number,
  ) {
    closeWhenUnreachable.register(this, fd, this);
  }

  /** Closes it now (no job refers to it); otherwise it is closed once no job does. */
  close(): void {
    // Unregistered first: a descriptor closed twice may by then be another file's.
    closeWhenUnreachable.unregister(this);
    closeSync(this.fd);
  }

  /**
   * The `length` bytes at `offset`, valid until the next read: the window is one buffer, read into
   * again as reads move on (a new 1 MB buffer per move was memory outside the heap that the collector
   * freed late: ~35 MB of a resumed 100,000-job apply's peak while it wrote its report). A caller that
   * keeps the bytes copies them.
   */
  read(offset: number, length: number): Buffer {
    const start = offset - this.windowStart;
    if (start < 0 || start + length > this.window.length) {
      if (this.buffer.length < length) this.buffer = Buffer.allocUnsafe(length);
      this.windowStart = offset;
      const read = readSync(this.fd, this.buffer, 0, this.buffer.length, offset);
      this.window = this.buffer.subarray(0, read);
      if (read < length) {
        throw new RunnerError(
          'STATE_CORRUPT',
          `The state snapshot ${this.path} was cut short while this run read it (${read} of ${length} bytes at offset ${offset}).`,
          {
            hint: 'Run the command again: the snapshot is then checked whole and, if damaged, the journal is replayed instead.',
          },
        );
      }
      return this.window.subarray(0, length);
    }
    return this.window.subarray(start, start + length);
  }
}

const closeWhenUnreachable = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Already closed at exit: nothing to release.
  }
});

/**
 * A job read from a state snapshot: its {@link JobSummary} in memory, its whole state (attempts,
 * downloads) left in the snapshot file and read when first used. The replayed state of 100,000 done
 * jobs is ~46 MB instead of ~120 MB, and reading the snapshot parses only the summaries.
 *
 * It is a {@link JobState}: reading `attempts`, `downloads` or `superseded`, or changing any field,
 * reads the whole state once and keeps it, so code written for a replayed state works unchanged (and
 * a change, e.g. a journal record applied to the job, is never lost). Code that reads every job once
 * and keeps nothing (reports, `runner status`) uses {@link viewJobState} instead, which keeps nothing.
 */
export class StoredJobState implements JobState {
  readonly id: string;
  private readonly summary: JobSummary;
  private whole: JobState | undefined;

  constructor(
    summary: JobSummary,
    private readonly file: SnapshotFile,
    private readonly offset: number,
    private readonly length: number,
  ) {
    this.id = summary.id;
    this.summary = summary;
  }

  storedSummary(): JobSummary | undefined {
    return this.whole === undefined ? this.summary : undefined;
  }

  /**
   * The stored text of the whole state (JSON), while it was not read: a new snapshot copies it. Valid
   * until the next read of the snapshot file (see {@link SnapshotFile.read}).
   */
  storedText(): Buffer | undefined {
    return this.whole === undefined ? this.file.read(this.offset, this.length) : undefined;
  }

  /** The whole state, read from the snapshot without keeping it (once read, the one kept). */
  view(): JobState {
    return this.whole ?? this.parse();
  }

  get payloadHash(): string {
    return this.whole?.payloadHash ?? this.summary.payloadHash;
  }
  set payloadHash(value: string) {
    // The same text (the plan's string for it, src/state/share-plan-strings.ts) changes nothing stored.
    if (this.whole === undefined && value === this.summary.payloadHash) {
      this.summary.payloadHash = value;
      return;
    }
    this.read().payloadHash = value;
  }

  get status(): JobStatus {
    return this.whole?.status ?? this.summary.status;
  }
  set status(value: JobStatus) {
    if (this.whole === undefined && value === this.summary.status) return;
    this.read().status = value;
  }

  get attempts(): JobState['attempts'] {
    return this.read().attempts;
  }
  set attempts(value: JobState['attempts']) {
    this.read().attempts = value;
  }

  get downloads(): DownloadState[] {
    return this.read().downloads;
  }
  set downloads(value: DownloadState[]) {
    this.read().downloads = value;
  }

  get superseded(): SupersededDownload[] {
    return this.read().superseded ?? [];
  }
  set superseded(value: SupersededDownload[]) {
    this.read().superseded = value;
  }

  /** `JSON.stringify` writes the whole state, as for any other job. */
  toJSON(): JobState {
    return this.view();
  }

  private read(): JobState {
    this.whole ??= this.parse();
    return this.whole;
  }

  private parse(): JobState {
    const text = this.file.read(this.offset, this.length).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const job = checkJobState(value);
    // The whole state must be the one its summary stands for (a replay of it gives the same status).
    if (
      job === undefined ||
      job.id !== this.id ||
      job.status !== this.summary.status ||
      job.attempts.length !== this.summary.attempts
    ) {
      throw new RunnerError(
        'STATE_CORRUPT',
        `The state snapshot ${this.file.path} holds no readable state for job ${this.id} at offset ${this.offset}, though its checksum matched when it was read.`,
        {
          hint: `Move ${this.file.path} away and run the command again: the journal is then replayed whole (it is the source of truth).`,
        },
      );
    }
    return job;
  }
}

/** A job's whole state without keeping it in memory: what reports and `runner status` read. */
export function viewJobState(job: JobState): JobState {
  return job instanceof StoredJobState ? job.view() : job;
}

/**
 * The parsed whole state of a job as a snapshot stores it, checked for shape (the file is on disk), with
 * one string kept where a job repeats a value, as a replay keeps it; undefined when it is not one.
 */
export function checkJobState(value: unknown): JobState | undefined {
  const job = value as Partial<JobState> | null;
  if (
    typeof job !== 'object' ||
    job === null ||
    typeof job.id !== 'string' ||
    typeof job.payloadHash !== 'string' ||
    !Array.isArray(job.attempts) ||
    !Array.isArray(job.downloads) ||
    typeof job.status !== 'string' ||
    !job.attempts.every(isAttemptState) ||
    !job.attempts.every(
      (attempt, index) => index === 0 || attempt.attempt > (job.attempts?.[index - 1]?.attempt ?? 0),
    ) ||
    !job.downloads.every(isDownloadState) ||
    !(
      job.superseded === undefined ||
      (Array.isArray(job.superseded) && job.superseded.every(isDownloadState))
    ) ||
    job.status !== deriveJobStatus(job.attempts)
  ) {
    return undefined;
  }
  shareStrings(job as JobState);
  return job as JobState;
}

/**
 * A replay keeps one string where a job repeats a value (its payload hash in each attempt, a result
 * URL in its download); parsing makes two. Sharing them again saves ~150 bytes a job.
 */
function shareStrings(job: JobState): void {
  for (const attempt of job.attempts) {
    if (attempt.payloadHash === job.payloadHash) attempt.payloadHash = job.payloadHash;
  }
  const urls = job.attempts.at(-1)?.resultUrls;
  if (urls === undefined) return;
  for (const download of job.downloads) {
    const url = urls.find((candidate) => candidate === download.url);
    if (url !== undefined) download.url = url;
  }
}

const STATUSES: ReadonlySet<string> = new Set<JobStatus>([
  'pending',
  'creating',
  'open',
  'done',
  'failed',
  'deferred',
  'uncertain',
]);

/** The parsed summary of a snapshot's job line, checked for shape; undefined when it is not one. */
export function checkJobSummary(value: unknown): JobSummary | undefined {
  const summary = value as Partial<JobSummary> | null;
  const optional = (field: unknown, type: string) => field === undefined || typeof field === type;
  if (
    typeof summary !== 'object' ||
    summary === null ||
    typeof summary.id !== 'string' ||
    typeof summary.payloadHash !== 'string' ||
    typeof summary.status !== 'string' ||
    !STATUSES.has(summary.status) ||
    typeof summary.attempts !== 'number' ||
    typeof summary.charged !== 'number' ||
    typeof summary.budgeted !== 'number' ||
    typeof summary.complete !== 'boolean' ||
    !isStringList(summary.files) ||
    !(summary.downloadFiles === undefined || isStringList(summary.downloadFiles)) ||
    !optional(summary.lastAttempt, 'number') ||
    !optional(summary.lastJobId, 'string') ||
    !optional(summary.lastPayloadHash, 'string')
  ) {
    return undefined;
  }
  return summary as JobSummary;
}

const OUTCOMES: ReadonlySet<string> = new Set<AttemptOutcome>([
  'creating',
  'open',
  'done',
  'failed',
  'retry',
  'create-failed',
  'create-refused',
  'deferred',
  'uncertain',
]);

/**
 * An attempt of a stored job state, checked as a journal record is (#24.4): a snapshot whose checksum
 * holds can still have been written by hand, and a wrong type here would change what is paid for.
 */
function isAttemptState(value: unknown): value is AttemptState {
  const attempt = value as Partial<AttemptState> | null;
  const optional = (field: unknown, type: string) => field === undefined || typeof field === type;
  return (
    typeof attempt === 'object' &&
    attempt !== null &&
    Number.isSafeInteger(attempt.attempt) &&
    (attempt.attempt ?? 0) >= 1 &&
    typeof attempt.payloadHash === 'string' &&
    typeof attempt.intentAt === 'number' &&
    typeof attempt.outcome === 'string' &&
    OUTCOMES.has(attempt.outcome) &&
    isStringList(attempt.resultUrls) &&
    optional(attempt.jobId, 'string') &&
    optional(attempt.idempotencyKey, 'string') &&
    optional(attempt.createdAt, 'number') &&
    optional(attempt.completedAt, 'number') &&
    optional(attempt.status, 'string') &&
    optional(attempt.progress, 'number') &&
    optional(attempt.failureKind, 'string') &&
    optional(attempt.error, 'string') &&
    optional(attempt.creditCost, 'number') &&
    optional(attempt.estimatedCredits, 'number') &&
    optional(attempt.chargeSource, 'string') &&
    optional(attempt.notBefore, 'number') &&
    optional(attempt.uncertainReason, 'string') &&
    (attempt.payload === undefined || (typeof attempt.payload === 'object' && attempt.payload !== null)) &&
    // An attempt past its create holds the job id it was answered with.
    (attempt.outcome === 'creating' ||
      attempt.outcome === 'uncertain' ||
      attempt.outcome === 'create-failed' ||
      attempt.outcome === 'create-refused' ||
      attempt.jobId !== undefined)
  );
}

function isDownloadState(value: unknown): value is DownloadState {
  const download = value as Partial<DownloadState> | null;
  return (
    typeof download === 'object' &&
    download !== null &&
    typeof download.url === 'string' &&
    typeof download.file === 'string' &&
    Number.isSafeInteger(download.bytes) &&
    (download.bytes ?? -1) >= 0 &&
    typeof download.sha256 === 'string' &&
    typeof download.at === 'number'
  );
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}
