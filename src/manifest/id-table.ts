import { createGrowableArray } from '../growable-array.js';

/** Distinct job ids with a number each (their first position), in the order they were first added. */
export interface IdTable {
  /** Distinct ids added. */
  readonly size: number;
  /** The number `id` was added with; -1 when it never was. */
  get(id: string): number;
  /** Adds `id` with `value` (0 to 2³² − 1) unless it is there: the value it already had, or -1 when added. */
  add(id: string, value: number): number;
  /** The ids in the order they were first added. */
  keys(): IterableIterator<string>;
}

/** Slots per id at most before the table doubles (a load factor of one half keeps probes short). */
const SLOTS_PER_ID = 2;

/**
 * An open-addressing hash table of strings over typed arrays, for the one id per job a plan checks
 * for duplicates. A `Map` of 1,000,000 fresh id strings cost 0.8–1.0 s of CPU to fill
 * (`--cpu-prof` of `runner plan` at 1,000,000 jobs: 13 % of the run, the largest single item); this
 * table fills in 0.11–0.15 s, and holds 8 bytes a slot plus 8 a key instead of a `Map` entry's ~40.
 * Linear probing with a 32-bit FNV-1a hash finished by MurmurHash3's mixer, ids compared only when
 * their hashes are equal. Each slot holds its key's hash beside the key's number, so a probe reads
 * one place in memory, not the slot and then the key's hash elsewhere (at a million ids, each was a
 * cache miss); `expectedIds` sizes the table at once instead of doubling it ten times.
 */
export function createIdTable(expectedIds = 0): IdTable {
  const keys: string[] = [];
  const values = createGrowableArray(Uint32Array, Math.max(1024, expectedIds));
  /** Per slot: key index + 1 (0: empty), then the key's hash. The slot count is a power of two. */
  let slots = new Int32Array(2 * slotCountFor(expectedIds));
  let mask = slots.length / 2 - 1;

  /** The slot holding `id`, or the empty slot where it would go. */
  const slotOf = (id: string, hash: number): number => {
    let slot = hash & mask;
    for (;;) {
      const entry = slots[2 * slot]!;
      if (entry === 0) return slot;
      if (slots[2 * slot + 1] === (hash | 0) && keys[entry - 1] === id) return slot;
      slot = (slot + 1) & mask;
    }
  };
  const grow = (): void => {
    const old = slots;
    slots = new Int32Array(old.length * 2);
    mask = slots.length / 2 - 1;
    for (let at = 0; at < old.length; at += 2) {
      if (old[at] === 0) continue;
      let slot = old[at + 1]! & mask;
      while (slots[2 * slot] !== 0) slot = (slot + 1) & mask;
      slots[2 * slot] = old[at]!;
      slots[2 * slot + 1] = old[at + 1]!;
    }
  };

  return {
    get size() {
      return keys.length;
    },
    get(id) {
      const entry = slots[2 * slotOf(id, hashText(id))]!;
      return entry === 0 ? -1 : values.at(entry - 1);
    },
    add(id, value) {
      const hash = hashText(id);
      let slot = slotOf(id, hash);
      const entry = slots[2 * slot]!;
      if (entry !== 0) return values.at(entry - 1);
      if ((keys.length + 1) * SLOTS_PER_ID > slots.length / 2) {
        grow();
        slot = slotOf(id, hash);
      }
      keys.push(id);
      values.push(value);
      slots[2 * slot] = keys.length;
      slots[2 * slot + 1] = hash;
      return -1;
    },
    keys: () => keys.values(),
  };
}

/** The smallest power of two of at least 1,024 slots that holds `ids` at {@link SLOTS_PER_ID}. */
function slotCountFor(ids: number): number {
  let count = 1024;
  while (count < (ids + 1) * SLOTS_PER_ID) count *= 2;
  return count;
}

/** 32-bit FNV-1a of the UTF-16 code units, then MurmurHash3's finaliser so the low bits mix well. */
function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}
