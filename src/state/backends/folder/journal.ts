import { open, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Clock } from '../../../clock.js';
import { systemClock } from '../../../clock.js';
import { RunnerError } from '../../../errors.js';
import { capRecordStrings, JOURNAL_VERSION, MAX_LINE_BYTES } from '../../journal-format.js';
import type { JournalIdentity } from '../../journal-identity.js';
import type { JournalWriter, LateEntry } from '../../journal-writer.js';
import { appendLateRecord } from './late-records.js';
import { syncDirectory } from './sync-directory.js';
import type { JournalEntry, JournalHeaderRecord, JournalRecord } from '../../records.js';
import type { JournalPosition } from '../../snapshot-format.js';

/** File name of the journal inside a state directory. */
export const JOURNAL_FILE = 'journal.jsonl';

/** Path of the journal in a state directory. */
export function journalPathFor(stateDir: string): string {
  return join(stateDir, JOURNAL_FILE);
}

const TAIL_CHUNK = 64 * 1024;

/**
 * Opens (creating with mode 0600) an append-only JSON-lines journal. A torn last line left by a crash
 * mid-write is cut off first, so the next record starts on a line of its own; a complete last line
 * that only lacks its newline gets one. A new journal starts with a header naming `identity` and the
 * format version (without `identity` it is written headerless, as version 1). Every string a record
 * carries is capped (see `capRecordStrings`), so no answer of the service can bloat the journal.
 */
export async function openJournal(
  path: string,
  options?: {
    clock?: Clock;
    identity?: JournalIdentity;
    /** Lines the file held when the caller read it (as `readJournalLines` numbers them): enables `position()`. */
    lines?: number;
  },
): Promise<JournalWriter> {
  const clock = options?.clock ?? systemClock;
  const handle = await open(path, 'a+', 0o600);
  let lines = options?.lines;
  let bytes: number;
  let header: JournalHeaderRecord | undefined;
  try {
    const { size } = await handle.stat();
    if (size === 0) {
      if (options?.identity !== undefined) {
        header = capRecordStrings({
          type: 'journal' as const,
          at: clock.now(),
          version: JOURNAL_VERSION,
          ...options.identity,
        });
        await handle.appendFile(`${JSON.stringify(header)}\n`, 'utf8');
        await handle.datasync();
        if (lines !== undefined) lines = 1;
      }
      await syncDirectory(dirname(path));
    }
    if ((await repairTail(handle)) === 'cut' && lines !== undefined) lines--;
    bytes = (await handle.stat()).size;
  } catch (error) {
    await handle.close();
    throw error;
  }
  let chain: Promise<unknown> = Promise.resolve();
  let closed = false;
  /** The attempts whose intent this writer stored: only their answers may be stored late. */
  const intents = new Set<string>();
  let damaged: Error | undefined;
  const position = (): JournalPosition | undefined => (lines === undefined ? undefined : { bytes, lines });

  const append = (entry: JournalEntry): Promise<JournalRecord> => {
    const record = capRecordStrings({ ...entry, at: entry.at ?? clock.now() });
    const line = `${JSON.stringify(record)}\n`;
    const size = Buffer.byteLength(line, 'utf8');
    if (size > MAX_LINE_BYTES) {
      // The reader skips such a line (replay.ts): refuse it here, where the record is still known.
      return Promise.reject(
        new RunnerError(
          'STATE_CORRUPT',
          `a ${record.type} record${'id' in record ? ` of job ${record.id}` : ''} is ${size} bytes, over the ${MAX_LINE_BYTES} a journal line may hold; it was not written to ${path}`,
        ),
      );
    }
    const next = chain.then(async () => {
      if (closed) throw new Error(`journal ${path} is closed`);
      if (damaged !== undefined) throw damaged;
      try {
        await handle.appendFile(line, 'utf8');
        await handle.datasync();
      } catch (error) {
        // Part of the line may be on disk (a disk that filled up mid-line): cut it off, so the next
        // record starts on a line of its own. If even that fails, nothing more is appended.
        try {
          await handle.truncate(bytes);
          await handle.datasync();
        } catch {
          damaged = new Error(
            `journal ${path} could not be written, nor cut back to its last whole line: nothing more is appended`,
            { cause: error },
          );
          lines = undefined;
        }
        throw error;
      }
      bytes += size;
      if (lines !== undefined) lines++;
      if (record.type === 'intent') intents.add(attemptKey(record.id, record.attempt));
      return record;
    });
    chain = next.catch(() => undefined);
    return next;
  };

  const exclusive = <T>(task: (at: JournalPosition | undefined) => Promise<T>): Promise<T> => {
    const next = chain.then(async () => {
      // Callers apply a record to their state when its append resolves: let those continuations run.
      await new Promise((resolve) => setImmediate(resolve));
      return task(position());
    });
    chain = next.catch(() => undefined);
    return next;
  };

  /**
   * A create's answer that came after this runner's lock was taken over (#31.9): the journal is the
   * next holder's now, so it goes to `late.jsonl` beside it (`late-records.ts`), which that holder
   * adopts with a replay's checks. Not through `chain`: the journal may be closed or damaged by now.
   */
  const appendLate = async (entry: LateEntry): Promise<boolean> => {
    if (!intents.has(attemptKey(entry.id, entry.attempt))) return false;
    await appendLateRecord(path, capRecordStrings({ ...entry, at: entry.at ?? clock.now() }));
    return true;
  };

  return {
    path,
    header,
    append,
    appendLate,
    position,
    exclusive,
    async close() {
      await chain;
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}

/** Cuts an unterminated, unparsable last line; terminates a parsable one. */
async function repairTail(handle: FileHandle): Promise<'cut' | 'terminated' | 'whole'> {
  const { size } = await handle.stat();
  if (size === 0) return 'whole';
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return 'whole';
  const lineStart = await findLineStart(handle, size);
  if (size - lineStart > MAX_LINE_BYTES) {
    // Too long to be a record the reader would take: end it, and the reader skips it with a warning.
    await handle.appendFile('\n', 'utf8');
    await handle.datasync();
    return 'terminated';
  }
  const tail = Buffer.alloc(size - lineStart);
  await handle.read(tail, 0, tail.length, lineStart);
  const whole = isJsonObject(tail.toString('utf8'));
  if (whole) await handle.appendFile('\n', 'utf8');
  else await handle.truncate(lineStart);
  await handle.datasync();
  return whole ? 'terminated' : 'cut';
}

async function findLineStart(handle: FileHandle, size: number): Promise<number> {
  let end = size;
  const chunk = Buffer.alloc(TAIL_CHUNK);
  while (end > 0) {
    const start = Math.max(0, end - TAIL_CHUNK);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const index = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (index >= 0) return start + index + 1;
    end = start;
  }
  return 0;
}

/** Whether a journal line parses to a JSON object with a string `type`. */
export function isJsonObject(line: string): boolean {
  try {
    const value: unknown = JSON.parse(line);
    return (
      typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string'
    );
  } catch {
    return false;
  }
}

function attemptKey(id: string, attempt: number): string {
  return `${id}\u0000${attempt}`;
}
