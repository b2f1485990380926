import { open, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkRecordFields, checkRecordPlace, LATE_DUPLICATE } from '../../check-record.js';
import type { JobState } from '../../job-state.js';
import type { LateAnswers } from '../../state-store.js';
import { MAX_LINE_BYTES } from '../../journal-format.js';
import type { JournalWriter, LateEntry } from '../../journal-writer.js';
import type { JournalRecord } from '../../records.js';
import { applyJournalRecord, parseJournalLine } from '../../replay.js';
import { syncDirectory } from './sync-directory.js';

/**
 * A run folder's late records (#31.9 on the folder): what a runner learned after its lock was taken
 * over (a create in flight answered with the job it paid for, or a refusal that made nothing). The
 * lock is the next holder's now, so the journal is not this runner's to write: the answer goes to
 * `late.jsonl` beside it, appended (O_APPEND, fsynced, never through the lock), and the next holder
 * adopts it into the journal when it opens the run, with the checks a replay makes.
 */
export const LATE_FILE = 'late.jsonl';

/**
 * Late records that no longer fit their job, set aside by the holder that passed them over (and
 * warned once): kept for a person to read, and skipped in `late.jsonl` from then on. `late.jsonl`
 * itself is never rewritten: a runner whose lock was taken over may be appending to it right now.
 */
export const REJECTED_LATE_FILE = 'late.rejected.jsonl';

export function latePathFor(journalPath: string): string {
  return join(dirname(journalPath), LATE_FILE);
}

export function rejectedLatePathFor(journalPath: string): string {
  return join(dirname(journalPath), REJECTED_LATE_FILE);
}

/** Appends one late record and makes it durable. The file is append-only: several writers may add to it. */
export async function appendLateRecord(
  journalPath: string,
  record: LateEntry & { at: number },
): Promise<void> {
  const line = `${JSON.stringify({ ...record, late: true })}\n`;
  if (Buffer.byteLength(line, 'utf8') > MAX_LINE_BYTES) throw new Error('the late record is too long');
  const handle = await open(latePathFor(journalPath), 'a', 0o600);
  try {
    await handle.appendFile(line, 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * The late records of the run folder whose journal is `journalPath`: whole lines holding a late
 * `created` or `create-failed` record with valid fields. A torn or damaged line (a writer that died
 * mid-line) is skipped: it was never acted on by anyone.
 */
export async function readLateRecords(journalPath: string): Promise<LateEntry[]> {
  return (await readLateLines(journalPath)).map((late) => late.record);
}

/** {@link readLateRecords} with each record's line, less the lines set aside as no longer fitting. */
async function readLateLines(journalPath: string): Promise<{ line: string; record: LateEntry }[]> {
  const text = await readIfThere(latePathFor(journalPath));
  if (text === '') return [];
  const rejected = new Set((await readIfThere(rejectedLatePathFor(journalPath))).split('\n'));
  const records: { line: string; record: LateEntry }[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '' || Buffer.byteLength(line, 'utf8') > MAX_LINE_BYTES || rejected.has(line))
      continue;
    const record = parseJournalLine(line);
    if (record === undefined || !isLate(record) || checkRecordFields(record) !== undefined) continue;
    records.push({ line, record });
  }
  return records;
}

async function readIfThere(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * Sets late lines aside as no longer fitting (appended to `late.rejected.jsonl`, fsynced, with its
 * folder entry when the file is new), so the warning about each is given once. A run pulled from
 * PostgreSQL brings the late records the database set aside there (`state pull`).
 */
export async function setAsideLateLines(journalPath: string, lines: readonly string[]): Promise<void> {
  if (lines.length === 0) return;
  const path = rejectedLatePathFor(journalPath);
  const isNew = await stat(path).then(
    () => false,
    () => true,
  );
  const handle = await open(path, 'a', 0o600);
  try {
    await handle.appendFile(lines.map((line) => `${line}\n`).join(''), 'utf8');
    await handle.datasync();
  } finally {
    await handle.close();
  }
  if (isNew) await syncDirectory(dirname(path));
}

function isLate(record: JournalRecord): record is JournalRecord & LateEntry {
  return (record.type === 'created' || record.type === 'create-failed') && record.late === true;
}

/**
 * Applies the run folder's late records to `jobs` with a replay's checks: one that fits (its attempt
 * still waits for an answer, or was called uncertain) is applied, and, with `journal` (the lock's
 * holder), appended to the journal first, so every later replay finds it in its place; one the
 * journal already holds is passed over silently; one that no longer fits is passed over with a
 * warning and, with `journal`, set aside in `late.rejected.jsonl`, so the warning is given once.
 * Without the lock (`status`) nothing is set aside: the journal read may be a moment behind the
 * late file (an intent written after the journal was read), so a record may only seem not to fit.
 * With `only`, the records of that one job (the rest of `jobs` may be out of date). Returns the
 * warnings and how many records were adopted.
 */
export async function adoptLateRecords(
  journalPath: string,
  jobs: Map<string, JobState>,
  journal?: Pick<JournalWriter, 'append'>,
  only?: string,
): Promise<{ adopted: number; warnings: string[] }> {
  const warnings: string[] = [];
  let adopted = 0;
  for (const { line, record } of await readLateLines(journalPath)) {
    if (only !== undefined && record.id !== only) continue;
    const place = checkRecordPlace(jobs, record as JournalRecord);
    if (place === LATE_DUPLICATE) continue;
    if (place !== undefined) {
      if (journal !== undefined) await setAsideLateLines(journalPath, [line]);
      warnings.push(
        `Passed over a late "${record.type}" record of job ${record.id} in ${latePathFor(journalPath)}, from a runner whose lock was taken over, which no longer fits: ${place}.${journal === undefined ? ' The next apply sets it aside.' : ` Set aside in ${rejectedLatePathFor(journalPath)} for you to read; not shown again.`}`,
      );
      continue;
    }
    const written = journal === undefined ? (record as JournalRecord) : await journal.append(record);
    applyJournalRecord(jobs, written);
    adopted++;
    warnings.push(
      record.type === 'created'
        ? `Job ${record.id}: its create (attempt ${record.attempt}) was answered after its runner's lock was taken over; job ${record.jobId} it paid for is followed from now on (a late record in ${latePathFor(journalPath)}).`
        : `Job ${record.id}: its create (attempt ${record.attempt}) was refused after its runner's lock was taken over (${record.code}: nothing was made); it may be created again (a late record in ${latePathFor(journalPath)}).`,
    );
  }
  return { adopted, warnings };
}

/**
 * The folder's late answers once its lock was taken over from a runner that may still be sending
 * creates (#31.9; `FolderLock.takenOver`): a create without an idempotency key that had no answer in
 * the journal then (`inFlight`, job ids) was that runner's, and its answer may still come to
 * `late.jsonl`; the executor waits for it as PostgreSQL's taker does, and adopts it under the lock.
 */
export function createFolderLateAnswers(input: {
  journalPath: string;
  journal: Pick<JournalWriter, 'append'>;
  takenOver: { holder: string; leaseEndedAt: number };
  inFlight: ReadonlySet<string>;
  now: () => number;
}): LateAnswers {
  const { journalPath, journal, takenOver } = input;
  return {
    unansweredCreate(id) {
      return Promise.resolve(
        input.inFlight.has(id)
          ? { machine: takenOver.holder, endedAgoMs: Math.max(0, input.now() - takenOver.leaseEndedAt) }
          : undefined,
      );
    },
    async lookForAnswer(id, job, attempt) {
      // Adopted into a copy: the runner's own state changes only when the answer is there.
      const jobs = new Map([[id, structuredClone(job)]]);
      const { adopted } = await adoptLateRecords(journalPath, jobs, journal, id);
      const now = jobs.get(id);
      const answered = now?.attempts.find((one) => one.attempt === attempt);
      return adopted > 0 && answered !== undefined && answered.outcome !== 'creating' ? now : undefined;
    },
  };
}

/**
 * Jobs whose latest create had no idempotency key and no answer on record: what a runner whose lock
 * was taken over may still have in flight.
 */
export function unansweredCreates(jobs: ReadonlyMap<string, JobState>): Set<string> {
  const ids = new Set<string>();
  for (const [id, job] of jobs) {
    const last = job.attempts.at(-1);
    if (last?.outcome === 'creating' && last.jobId === undefined && last.idempotencyKey === undefined)
      ids.add(id);
  }
  return ids;
}
