/** Where the next read goes: `buffer` from `offset`, at most `length` bytes. */
export interface ReadTarget {
  buffer: Buffer;
  offset: number;
  length: number;
}

/**
 * One buffer that a snapshot's bytes are read into and handed on as whole lines (the folder's file,
 * and the copy of PostgreSQL's parts as it is written). What follows the last newline read moves to
 * the front for the next read to complete it, once the lines handed on were used; a line longer than
 * the buffer grows it. One buffer serves every read: a new one per read (134 of 1 MB for 100,000
 * jobs) lingered until collected, ~35 MB more at the peak.
 */
export interface LineWindow {
  /** Where to read next. The lines last handed on are no longer valid. */
  target(): ReadTarget;
  /** After `read` bytes came to the last target: the whole lines so far, if any. */
  lines(read: number): Buffer | undefined;
  /** At the end: the last line, without its newline, if any. */
  rest(): Buffer | undefined;
}

/** Bytes read at once, at first (a longer line grows the buffer). */
const WINDOW_BYTES = 1024 * 1024;

export function createLineWindow(size = WINDOW_BYTES): LineWindow {
  let buffer = Buffer.allocUnsafe(size);
  let kept = 0;
  // The part line after the lines last handed on: moved to the front when the next read is asked for.
  let tail: { start: number; end: number } | undefined;
  const settle = () => {
    if (tail === undefined) return;
    buffer.copy(buffer, 0, tail.start, tail.end);
    kept = tail.end - tail.start;
    tail = undefined;
  };
  return {
    target() {
      settle();
      if (kept === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, kept);
        buffer = larger;
      }
      return { buffer, offset: kept, length: buffer.length - kept };
    },
    lines(read) {
      const filled = kept + read;
      const lineEnd = buffer.lastIndexOf(NEWLINE, filled - 1) + 1;
      tail = { start: lineEnd, end: filled };
      return lineEnd > 0 ? buffer.subarray(0, lineEnd) : undefined;
    },
    rest() {
      settle();
      return kept > 0 ? buffer.subarray(0, kept) : undefined;
    },
  };
}

const NEWLINE = 0x0a;
