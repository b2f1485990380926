import { createGrowableArray } from '../growable-array.js';

/** A SHA-256 as the plan writes it: 64 lowercase hex digits (`hash('sha256', …, 'hex')`). */
const HEX_SHA256 = /^[0-9a-f]{64}$/;
const HASH_BYTES = 32;
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
 */
export function createHashColumn(): HashColumn {
  const kinds = createGrowableArray(Uint8Array);
  const others = new Map<number, string>();
  // Made on the first hash: a plan without diff parts keeps none.
  let bytes = Buffer.alloc(0);
  return {
    get length() {
      return kinds.length;
    },
    push(hash) {
      const index = kinds.length;
      if (hash === undefined) kinds.push(NONE);
      else if (HEX_SHA256.test(hash)) {
        if (bytes.length < (index + 1) * HASH_BYTES) {
          const bigger = Buffer.alloc(Math.max(1024, index + 1) * 2 * HASH_BYTES);
          bytes.copy(bigger);
          bytes = bigger;
        }
        bytes.write(hash, index * HASH_BYTES, HASH_BYTES, 'hex');
        kinds.push(PACKED);
      } else {
        others.set(index, hash);
        kinds.push(AS_WRITTEN);
      }
    },
    at(index) {
      const kind = kinds.at(index);
      if (kind === PACKED) return bytes.toString('hex', index * HASH_BYTES, (index + 1) * HASH_BYTES);
      return kind === AS_WRITTEN ? others.get(index) : undefined;
    },
  };
}
