import type { JournalRecord } from './records.js';

/**
 * The journal format this runner writes. Version 1 (the first release) had no header line; version 2
 * starts with a `journal` header naming its pipeline and run. Record types are the same in both.
 */
export const JOURNAL_VERSION = 2;

/**
 * Record types this runner understands; others are ignored with a warning (a newer runner's additions).
 * A `Record` over the union, so a record type added to `JournalRecord` fails to compile until listed.
 */
const RECORD_TYPES: Readonly<Record<JournalRecord['type'], true>> = {
  journal: true,
  run: true,
  intent: true,
  created: true,
  'create-failed': true,
  status: true,
  completed: true,
  failed: true,
  deferred: true,
  downloaded: true,
  uncertain: true,
  interrupted: true,
};
export const KNOWN_RECORD_TYPES: ReadonlySet<string> = new Set(Object.keys(RECORD_TYPES));

/**
 * A line longer than this is skipped with a warning instead of read: no record the runner writes
 * comes near it (strings are capped), and one giant line must not make a journal unreadable (#11.5).
 */
export const MAX_LINE_BYTES = 1024 * 1024;

/** Free-text fields (service errors, reasons) are capped to this many UTF-8 bytes when journaled. */
export const MAX_TEXT_BYTES = 2 * 1024;

/** URLs, file paths, ids and names get more room: cutting one makes it useless, but 8 KB is never a real one. */
export const MAX_REFERENCE_BYTES = 8 * 1024;

/**
 * Most result URLs one job may have (a job yields one image, occasionally two: spec 4.3). Chosen so a
 * `completed` record of that many URLs, each at its cap, fills at most half of {@link MAX_LINE_BYTES}:
 * the writer never makes a line the reader skips. A job reporting more is flagged, not journaled (#24.9).
 */
export const MAX_RESULTS_PER_JOB = Math.floor(MAX_LINE_BYTES / 2 / MAX_REFERENCE_BYTES);

const REFERENCE_FIELDS = new Set([
  'url',
  'resultUrls',
  'file',
  'manifestFile',
  'id',
  'jobId',
  'idempotencyKey',
  'pipeline',
  'runId',
]);

/**
 * A copy of the record whose every string field fits its cap, cut ones ending in
 * `…[truncated N bytes]`. Records are flat apart from `resultUrls`, a string array.
 */
export function capRecordStrings<T extends object>(record: T): T {
  let changed = false;
  const capped: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    const max = REFERENCE_FIELDS.has(key) ? MAX_REFERENCE_BYTES : MAX_TEXT_BYTES;
    if (typeof value === 'string') {
      capped[key] = capString(value, max);
    } else if (Array.isArray(value)) {
      capped[key] = value.map((item: unknown) => (typeof item === 'string' ? capString(item, max) : item));
    } else {
      capped[key] = value;
    }
    if (capped[key] !== value && !(Array.isArray(value) && sameItems(value, capped[key] as unknown[]))) {
      changed = true;
    }
  }
  return changed ? (capped as T) : record;
}

/** `text` cut to at most `maxBytes` UTF-8 bytes (plus the note), never inside a character. */
export function capString(text: string, maxBytes: number): string {
  // Cheap exit: a string of n UTF-16 units has at most 3n UTF-8 bytes.
  if (text.length * 3 <= maxBytes) return text;
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= maxBytes) return text;
  let kept = Buffer.from(text.slice(0, maxBytes), 'utf8').subarray(0, maxBytes).toString('utf8');
  // A character cut in two decodes as U+FFFD: drop it.
  if (kept.endsWith('\uFFFD')) kept = kept.slice(0, -1);
  const dropped = bytes - Buffer.byteLength(kept, 'utf8');
  return `${kept}…[truncated ${dropped} bytes]`;
}

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
