import { RunnerError } from '../errors.js';
import { checkRecordFields, checkRecordPlace, LATE_DUPLICATE } from './check-record.js';
import { deriveJobStatus, type AttemptState, type JobState } from './job-state.js';
import { JOURNAL_VERSION, KNOWN_RECORD_TYPES, MAX_LINE_BYTES } from './journal-format.js';
import type { JournalRecord } from './records.js';

/** One line of a journal as read, without its newline. */
export interface JournalLine {
  /** 1-based line number. */
  number: number;
  /** The line's text; undefined when it was longer than the limit and skipped unread. */
  text: string | undefined;
  bytes: number;
  /** False only for a last line without its newline (possibly torn by a crash mid-write). */
  terminated: boolean;
}

export interface ReplayResult {
  jobs: Map<string, JobState>;
  warnings: string[];
  /** `run` records, oldest first. */
  runs: Extract<JournalRecord, { type: 'run' }>[];
  /** 1: a journal without a header (the first release); 2 on: from its header. */
  version: number;
  /** The header's identity (version 2 on). */
  header?: { pipeline: string; runId: string; at: number };
  /**
   * Which machine wrote each job's latest record, when several can apply one run (PostgreSQL): job
   * id to machine name. Absent for the folder, where one machine does everything.
   */
  machines?: ReadonlyMap<string, string>;
}

/**
 * Everything a replay knows after a prefix of complete lines, to go on from there: what a state
 * snapshot stores. `lineWarnings` are the skipped over-long lines; `unknownTypes` the records of
 * types this runner does not know, counted (their warnings are written at the end of the replay).
 */
export interface ReplayCheckpoint {
  jobs: Map<string, JobState>;
  runs: ReplayResult['runs'];
  version: number;
  header?: ReplayResult['header'];
  lineWarnings: string[];
  unknownTypes: UnknownTypeCount[];
  /** Lines of the prefix (the next line read is `lines + 1`). */
  lines: number;
}

export interface UnknownTypeCount {
  type: string;
  count: number;
  firstLine: number;
}

/**
 * A complete journal line that no runner wrote (damaged, or edited by hand): STATE_CORRUPT naming the
 * line and what is wrong with it. Nothing is created from such a journal; `runner state check
 * --repair` cuts it at this line.
 */
export class JournalLineError extends RunnerError {
  /** 1-based line number in the journal. */
  readonly line: number;
  /** What is wrong with the line, without the file and line. */
  readonly reason: string;

  constructor(source: string, line: number, reason: string) {
    super('STATE_CORRUPT', `${source} is corrupt at line ${line}: ${reason}. Nothing was created.`, {
      hint: 'See what is wrong with `runner state check <manifest> [--run ID] [--state-dir DIR]`; `--repair` cuts the journal at the first bad line (keeping a copy) if you cannot restore the state folder from a backup. Jobs recorded after the cut are followed again from what the service still knows, or reported uncertain.',
    });
    this.line = line;
    this.reason = reason;
  }
}

/** Feeds journal lines in order, then `finish()`; see {@link replayJournal}. */
/**
 * A late record (written outside the lease's fence, #31.9) that no longer fits its job: passed over,
 * never applied. `place` says why.
 */
export interface LatePassedOver {
  record: JournalRecord;
  place: string;
}

export interface JournalReplay {
  /** Applies one line; returns what it passed over when the line held a late record that no longer fits. */
  add(line: JournalLine): LatePassedOver | undefined;
  /** The state after the lines added so far, all of them complete (no torn last line). */
  checkpoint(): ReplayCheckpoint;
  finish(): ReplayResult;
}

/**
 * Rebuilds every job's state from the journal text. Pure and linear in the journal's size.
 * A torn last line (a crash mid-write) is ignored with a warning; any other unreadable line is a
 * STATE_CORRUPT error naming its line number. Lines over {@link MAX_LINE_BYTES} and records of an
 * unknown type are skipped with a warning; a header of an unknown format version is a STATE_VERSION
 * error.
 */
export function replayJournal(text: string, source = 'The state journal'): ReplayResult {
  const replay = createJournalReplay(source);
  const lines = text.split('\n');
  const lastIndex = lines.length - 1;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    const bytes = Buffer.byteLength(line, 'utf8');
    replay.add({
      number: index + 1,
      text: bytes > MAX_LINE_BYTES ? undefined : line,
      bytes,
      terminated: index !== lastIndex,
    });
  }
  return replay.finish();
}

/**
 * The incremental form of {@link replayJournal}: `source` names the journal in messages. From a
 * checkpoint, it takes over the checkpoint's jobs map and goes on from there.
 */
export function createJournalReplay(
  source = 'The state journal',
  from?: ReplayCheckpoint,
  options: {
    /**
     * Warn of each late record passed over (the folder's journal). False: the caller does, from what
     * `add` returns (PostgreSQL, which sets such a record aside once and names it). @default true
     */
    warnLate?: boolean;
  } = {},
): JournalReplay {
  const jobs = from?.jobs ?? new Map<string, JobState>();
  const lineWarnings = [...(from?.lineWarnings ?? [])];
  // Not part of a checkpoint: a snapshot stored from it would repeat them at every replay for ever,
  // though the record they are about is set aside, or covered by the snapshot, by then.
  const lateWarnings: string[] = [];
  let tornWarning: string | undefined;
  const runs: ReplayResult['runs'] = [...(from?.runs ?? [])];
  const unknownTypes = new Map<string, { count: number; firstLine: number }>(
    (from?.unknownTypes ?? []).map(({ type, count, firstLine }) => [type, { count, firstLine }]),
  );
  let header: ReplayResult['header'] = from?.header;
  let version = from?.version ?? 1;
  let lines = from?.lines ?? 0;
  return {
    add(line) {
      lines = line.number;
      if (line.text === undefined) {
        lineWarnings.push(
          `Skipped line ${line.number} of the state journal: ${line.bytes} bytes, over the ${MAX_LINE_BYTES}-byte limit for one record (no runner writes one so long). If it held a job's answer, that job is treated as unanswered.`,
        );
        return;
      }
      if (line.text.trim() === '') return;
      const record = parseJournalLine(line.text);
      if (record === undefined) {
        // Only an unterminated last line can be a torn write.
        if (!line.terminated) {
          tornWarning = `Ignored a torn last line (${line.text.length} characters) of the state journal: a crash interrupted its write.`;
          return;
        }
        throw new JournalLineError(
          source,
          line.number,
          `expected one JSON record, received ${JSON.stringify(line.text.slice(0, 80))}`,
        );
      }
      if (!KNOWN_RECORD_TYPES.has(record.type)) {
        const seen = unknownTypes.get(record.type);
        if (seen === undefined) unknownTypes.set(record.type, { count: 1, firstLine: line.number });
        else seen.count++;
        return;
      }
      if (record.type === 'journal') {
        version = checkVersion(record, line.number, source);
        header ??= { pipeline: String(record.pipeline), runId: String(record.runId), at: record.at };
      }
      const invalid = checkRecordFields(record);
      if (invalid !== undefined) throw new JournalLineError(source, line.number, invalid);
      if (record.type === 'journal') return;
      const place = checkRecordPlace(jobs, record);
      if (place === LATE_DUPLICATE) {
        lineWarnings.push(
          `Ignored line ${line.number} of the state journal: a late copy of a "${record.type}" record it already holds (a runner paused while writing it, whose lock was taken over).`,
        );
        return;
      }
      if (place !== undefined) {
        if (!isLateRecord(record)) throw new JournalLineError(source, line.number, place);
        // Written outside the lease's fence by a runner that lost it mid-create (#31.9): the run went
        // on without it meanwhile. Said aloud, since it may name a paid job no attempt holds now.
        if (options.warnLate !== false) {
          lateWarnings.push(
            `Passed over line ${line.number} of the state journal: a late "${record.type}" record from a runner whose lease had ended, which no longer fits: ${place}.`,
          );
        }
        return { record, place };
      }
      applyRecord(jobs, runs, record);
      return undefined;
    },
    checkpoint() {
      deriveStatuses(jobs);
      return {
        jobs,
        runs: [...runs],
        version,
        ...(header === undefined ? {} : { header }),
        lineWarnings: [...lineWarnings],
        unknownTypes: [...unknownTypes].map(([type, seen]) => ({ type, ...seen })),
        lines,
      };
    },
    finish() {
      const warnings = [
        ...lineWarnings,
        ...lateWarnings,
        ...(tornWarning === undefined ? [] : [tornWarning]),
      ];
      for (const [type, { count, firstLine }] of unknownTypes) {
        warnings.push(
          `Ignored ${count} state journal record${count === 1 ? '' : 's'} of unknown type ${JSON.stringify(type.slice(0, 40))} (first at line ${firstLine}): written by a newer runner? They change no job's state.`,
        );
      }
      deriveStatuses(jobs);
      return { jobs, warnings, runs, version, ...(header === undefined ? {} : { header }) };
    },
  };
}

/** A job whose state is still in the snapshot it was read from keeps the status stored with it. */
function deriveStatuses(jobs: ReadonlyMap<string, JobState>): void {
  for (const job of jobs.values()) {
    if (job.storedSummary?.() === undefined) job.status = deriveJobStatus(job.attempts);
  }
}

function checkVersion(record: { version?: unknown }, lineNumber: number, source: string): number {
  const { version } = record;
  if (
    typeof version === 'number' &&
    Number.isInteger(version) &&
    version >= 2 &&
    version <= JOURNAL_VERSION
  ) {
    return version;
  }
  throw new RunnerError(
    'STATE_VERSION',
    `${source} has format version ${JSON.stringify(version)} (line ${lineNumber}); this runner reads versions 1 to ${JOURNAL_VERSION}.`,
    {
      hint:
        typeof version === 'number' && version > JOURNAL_VERSION
          ? 'It was written by a newer runner: upgrade the runner to read it. Nothing was created.'
          : 'The header line is damaged: restore the state directory from a backup. Nothing was created.',
    },
  );
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

/** A record a runner wrote after its lease ended, outside the fence (see `CreatedRecord.late`). */
function isLateRecord(record: JournalRecord): boolean {
  return (record.type === 'created' || record.type === 'create-failed') && record.late === true;
}

/** One journal line's record: a JSON object with a string `type`, else undefined (damaged or torn). */
export function parseJournalLine(line: string): JournalRecord | undefined {
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
    case 'journal':
      return;
    case 'intent': {
      const job = getJob(jobs, record.id);
      job.payloadHash = record.payloadHash;
      const existing = findAttempt(job, record.attempt);
      if (existing !== undefined) {
        existing.outcome = 'creating';
        return;
      }
      supersedeDownloads(job);
      const attempt: AttemptState = {
        attempt: record.attempt,
        payloadHash: record.payloadHash,
        intentAt: record.at,
        outcome: 'creating',
        resultUrls: [],
      };
      if (record.idempotencyKey !== undefined) attempt.idempotencyKey = record.idempotencyKey;
      if (record.payload !== undefined) attempt.payload = record.payload;
      if (record.rejectedAttempt !== undefined) attempt.rejectedAttempt = record.rejectedAttempt;
      if (record.rejectionNote !== undefined) attempt.rejectionNote = record.rejectionNote;
      // A literal of one holds one slot; a push onto an empty array reserves 17 (100,000 jobs: ~13 MB).
      if (job.attempts.length === 0) job.attempts = [attempt];
      else job.attempts.push(attempt);
      return;
    }
    case 'downloaded': {
      const job = getJob(jobs, record.id);
      const download = {
        // The same text as the result URL it downloads: one string kept instead of two.
        url: job.attempts.at(-1)?.resultUrls.find((url) => url === record.url) ?? record.url,
        file: record.file,
        bytes: record.bytes,
        sha256: record.sha256,
        at: record.at,
        ...(record.machine === undefined ? {} : { machine: record.machine }),
      };
      const kept = job.downloads.filter((earlier) => earlier.url !== record.url);
      job.downloads = kept.length === 0 ? [download] : [...kept, download];
      return;
    }
    default:
      applyAttemptRecord(getAttempt(getJob(jobs, record.id), record.attempt, record.at), record);
  }
}

type AttemptRecord = Exclude<
  JournalRecord,
  { type: 'run' | 'interrupted' | 'intent' | 'downloaded' | 'journal' }
>;

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
      if (record.creditCost !== undefined) attempt.creditCost = record.creditCost;
      if (record.chargeSource !== undefined) attempt.chargeSource = record.chargeSource;
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

/** A new attempt starts: the files of the earlier one are no longer the job's results. */
function supersedeDownloads(job: JobState): void {
  if (job.downloads.length === 0) return;
  const attempt = job.attempts.at(-1)?.attempt ?? 0;
  job.superseded = [
    ...(job.superseded ?? []),
    ...job.downloads.map((download) => ({ ...download, attempt })),
  ];
  job.downloads = [];
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
  if (job.attempts.length === 0) job.attempts = [created];
  else job.attempts.push(created);
  return created;
}
