import { createReadStream } from 'node:fs';
import { MAX_LINE_BYTES } from './journal-format.js';

/** One line of a journal file as read, without its newline. */
export interface JournalLine {
  /** 1-based line number. */
  number: number;
  /** The line's text; undefined when it was longer than the limit and skipped unread. */
  text: string | undefined;
  bytes: number;
  /** False only for a last line without its newline (possibly torn by a crash mid-write). */
  terminated: boolean;
}

/**
 * Reads a journal line by line in 64 KB chunks, never holding more than one line (and at most
 * `maxLineBytes` of it) in memory: a journal larger than a JavaScript string can hold stays
 * readable, and an over-long line is measured and skipped rather than read (#11.5).
 * Yields nothing for a missing file.
 */
export async function* readJournalLines(
  path: string,
  options: { maxLineBytes?: number } = {},
): AsyncGenerator<JournalLine> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
  let parts: Buffer[] = [];
  let bytes = 0;
  let number = 1;
  const take = (terminated: boolean): JournalLine => {
    const line: JournalLine = {
      number,
      text: bytes > maxLineBytes ? undefined : Buffer.concat(parts).toString('utf8'),
      bytes,
      terminated,
    };
    parts = [];
    bytes = 0;
    number++;
    return line;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(0x0a, start);
        const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
        // Past the limit only the count grows: the line is skipped, so its bytes need not be kept.
        if (bytes + piece.length <= maxLineBytes) parts.push(piece);
        else parts = [];
        bytes += piece.length;
        if (end === -1) break;
        yield take(true);
        start = end + 1;
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (bytes > 0) yield take(false);
}
