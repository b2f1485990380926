import { open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../clock.js';
import { systemClock } from '../clock.js';
import { capRecordStrings, JOURNAL_VERSION, MAX_LINE_BYTES } from './journal-format.js';
import type { JournalEntry, JournalRecord } from './records.js';

/** File name of the journal inside a state directory. */
export const JOURNAL_FILE = 'journal.jsonl';

/** Appends records to the journal; each is on disk before `append` resolves. */
export interface JournalWriter {
  readonly path: string;
  /** Writes one line and `datasync`s it. Appends are serialized in call order. */
  append(entry: JournalEntry): Promise<JournalRecord>;
  close(): Promise<void>;
}

const TAIL_CHUNK = 64 * 1024;

/** Which pipeline and run a journal belongs to: written as its header line (format version 2). */
export interface JournalIdentity {
  pipeline: string;
  runId: string;
}

/**
 * Opens (creating with mode 0600) an append-only JSON-lines journal. A torn last line left by a crash
 * mid-write is cut off first, so the next record starts on a line of its own; a complete last line
 * that only lacks its newline gets one. A new journal starts with a header naming `identity` and the
 * format version (without `identity` it is written headerless, as version 1). Every string a record
 * carries is capped (see `capRecordStrings`), so no answer of the service can bloat the journal.
 */
export async function openJournal(
  path: string,
  options?: { clock?: Clock; identity?: JournalIdentity },
): Promise<JournalWriter> {
  const clock = options?.clock ?? systemClock;
  const handle = await open(path, 'a+', 0o600);
  try {
    const { size } = await handle.stat();
    if (size === 0) {
      if (options?.identity !== undefined) {
        const header = { type: 'journal', at: clock.now(), version: JOURNAL_VERSION, ...options.identity };
        await handle.appendFile(`${JSON.stringify(capRecordStrings(header))}\n`, 'utf8');
        await handle.datasync();
      }
      await syncDirectory(dirname(path));
    }
    await repairTail(handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
  let chain: Promise<unknown> = Promise.resolve();
  let closed = false;

  const append = (entry: JournalEntry): Promise<JournalRecord> => {
    const record = capRecordStrings({ ...entry, at: entry.at ?? clock.now() });
    const line = `${JSON.stringify(record)}\n`;
    const next = chain.then(async () => {
      if (closed) throw new Error(`journal ${path} is closed`);
      await handle.appendFile(line, 'utf8');
      await handle.datasync();
      return record;
    });
    chain = next.catch(() => undefined);
    return next;
  };

  return {
    path,
    append,
    async close() {
      await chain;
      if (closed) return;
      closed = true;
      await handle.close();
    },
  };
}

/** Makes a new journal's directory entry durable too (best effort: not every platform can fsync a directory). */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open a directory; the file's own fsyncs still hold.
  }
}

/** Cuts an unterminated, unparsable last line; terminates a parsable one. */
async function repairTail(handle: FileHandle): Promise<void> {
  const { size } = await handle.stat();
  if (size === 0) return;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  if (last[0] === 0x0a) return;
  const lineStart = await findLineStart(handle, size);
  if (size - lineStart > MAX_LINE_BYTES) {
    // Too long to be a record the reader would take: end it, and the reader skips it with a warning.
    await handle.appendFile('\n', 'utf8');
    await handle.datasync();
    return;
  }
  const tail = Buffer.alloc(size - lineStart);
  await handle.read(tail, 0, tail.length, lineStart);
  if (isJsonObject(tail.toString('utf8'))) {
    await handle.appendFile('\n', 'utf8');
  } else {
    await handle.truncate(lineStart);
  }
  await handle.datasync();
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
