import { createReadStream } from 'node:fs';
import { MAX_LINE_BYTES } from '../../journal-format.js';
import type { JournalLine } from '../../replay.js';

/** Where to start reading: a byte offset at the start of a line, and that line's number. */
export interface JournalStart {
  offset: number;
  line: number;
}

export interface ReadJournalOptions {
  maxLineBytes?: number;
  /** Read from here on (the end of a snapshot's prefix). @default the start of the file */
  start?: JournalStart;
}

/**
 * Reads a journal line by line in 64 KB chunks, never holding more than one line (and at most
 * `maxLineBytes` of it) in memory: a journal larger than a JavaScript string can hold stays
 * readable, and an over-long line is measured and skipped rather than read (#11.5).
 * Yields nothing for a missing file.
 */
export async function* readJournalLines(
  path: string,
  options: ReadJournalOptions = {},
): AsyncGenerator<JournalLine> {
  for await (const batch of readJournalBatches(path, options)) yield* batch;
}

/**
 * {@link readJournalLines}, a chunk's complete lines at a time: one `await` per 64 KB instead of one
 * per line, which is most of the cost of reading a journal of short records.
 */
export async function* readJournalBatches(
  path: string,
  options: ReadJournalOptions = {},
): AsyncGenerator<JournalLine[]> {
  const maxLineBytes = options.maxLineBytes ?? MAX_LINE_BYTES;
  const stream = createReadStream(path, {
    highWaterMark: 64 * 1024,
    ...(options.start === undefined ? {} : { start: options.start.offset }),
  });
  // The part of the current line carried over from earlier chunks (a line spanning chunks).
  let parts: Buffer[] = [];
  let bytes = 0;
  let number = options.start?.line ?? 1;
  const take = (tail: Buffer, terminated: boolean): JournalLine => {
    const total = bytes + tail.length;
    let text: string | undefined;
    if (total <= maxLineBytes) {
      text = parts.length === 0 ? tail.toString('utf8') : Buffer.concat([...parts, tail]).toString('utf8');
    }
    parts = [];
    bytes = 0;
    return { number: number++, text, bytes: total, terminated };
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const batch: JournalLine[] = [];
      let start = 0;
      for (;;) {
        const end = chunk.indexOf(0x0a, start);
        if (end === -1) break;
        batch.push(take(chunk.subarray(start, end), true));
        start = end + 1;
      }
      const rest = chunk.subarray(start);
      // Past the limit only the count grows: the line is skipped, so its bytes need not be kept.
      if (bytes + rest.length <= maxLineBytes) parts.push(Buffer.from(rest));
      else parts = [];
      bytes += rest.length;
      if (batch.length > 0) yield batch;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (bytes > 0) yield [take(Buffer.alloc(0), false)];
}
