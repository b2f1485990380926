import { createGrowableArray } from '../growable-array.js';

const HASH_BYTES = 32;
const HEX_DIGITS = HASH_BYTES * 2;
/** Hashes per page of bytes (128 KiB). */
const PAGE_HASHES = 4096;
const NONE = 0;
const PACKED = 1;
const AS_WRITTEN = 2;

/** One optional hash per row of a job table, rows added in order. */
export interface HashColumn {
  /** Rows so far. */
  readonly length: number;
  /** Adds the next row's hash (`undefined`: the row has none). */
  push(hash: string | undefined): void;
  /** The row's hash as it was pushed; `undefined` when it has none. */
  at(index: number): string | undefined;
}

/**
 * Hashes kept as their 32 bytes, not as strings: a 64-character string is ~80 bytes of heap plus its
 * slot, 96 MB for a 1,000,000-job plan against 32 MB here. Anything else pushed (no caller does) is
 * kept as written, so `at` always gives back what was pushed.
 *
 * A SHA-256 as the plan writes it (`hash('sha256', …, 'hex')`: 64 lowercase hex digits) is told by
 * decoding it: 32 bytes decoded from 64 characters are 64 hex digits, and lower case when
 * `toLowerCase` leaves them as they are. At 1,000,000 jobs, `/^[0-9a-f]{64}$/` before the decode cost
 * 2.1–2.7 % of `runner plan` (`--cpu-prof`) and this check about a third of it; the bytes live in
 * fixed pages, where doubling one buffer copied 2.6 % of the run's time.
 */
export function createHashColumn(): HashColumn {
  const kinds = createGrowableArray(Uint8Array);
  const others = new Map<number, string>();
  // Made as hashes come: a plan without diff parts keeps none.
  const pages: Buffer[] = [];
  return {
    get length() {
      return kinds.length;
    },
    push(hash) {
      const index = kinds.length;
      if (hash === undefined) {
        kinds.push(NONE);
        return;
      }
      if (hash.length === HEX_DIGITS) {
        const page = Math.floor(index / PAGE_HASHES);
        while (pages.length <= page) pages.push(Buffer.alloc(PAGE_HASHES * HASH_BYTES));
        const decoded = pages[page]!.write(hash, (index % PAGE_HASHES) * HASH_BYTES, HASH_BYTES, 'hex');
        if (decoded === HASH_BYTES && hash.toLowerCase() === hash) {
          kinds.push(PACKED);
          return;
        }
      }
      others.set(index, hash);
      kinds.push(AS_WRITTEN);
    },
    at(index) {
      const kind = kinds.at(index);
      if (kind === PACKED) {
        const start = (index % PAGE_HASHES) * HASH_BYTES;
        return pages[Math.floor(index / PAGE_HASHES)]!.toString('hex', start, start + HASH_BYTES);
      }
      return kind === AS_WRITTEN ? others.get(index) : undefined;
    },
  };
}
