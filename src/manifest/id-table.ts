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
 * table fills in 0.11–0.15 s, and holds 4 bytes a slot plus 8 a key instead of a `Map` entry's ~40.
 * Linear probing with a 32-bit FNV-1a hash finished by MurmurHash3's mixer, ids compared only when
 * their hashes are equal.
 */
export function createIdTable(): IdTable {
  const keys: string[] = [];
  const values = createGrowableArray(Uint32Array);
  const hashes = createGrowableArray(Uint32Array);
  /** Key index + 1 per slot; 0 is an empty slot. The length is a power of two. */
  let slots = new Int32Array(1024);
  let mask = slots.length - 1;

  /** The slot holding `id`, or the empty slot where it would go. */
  const slotOf = (id: string, hash: number): number => {
    let slot = hash & mask;
    for (;;) {
      const entry = slots[slot]!;
      if (entry === 0) return slot;
      if (hashes.at(entry - 1) === hash && keys[entry - 1] === id) return slot;
      slot = (slot + 1) & mask;
    }
  };
  const grow = (): void => {
    slots = new Int32Array(slots.length * 2);
    mask = slots.length - 1;
    for (let index = 0; index < keys.length; index++) {
      let slot = hashes.at(index) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = index + 1;
    }
  };

  return {
    get size() {
      return keys.length;
    },
    get(id) {
      const entry = slots[slotOf(id, hashText(id))]!;
      return entry === 0 ? -1 : values.at(entry - 1);
    },
    add(id, value) {
      const hash = hashText(id);
      let slot = slotOf(id, hash);
      const entry = slots[slot]!;
      if (entry !== 0) return values.at(entry - 1);
      if ((keys.length + 1) * SLOTS_PER_ID > slots.length) {
        grow();
        slot = slotOf(id, hash);
      }
      keys.push(id);
      values.push(value);
      hashes.push(hash);
      slots[slot] = keys.length;
      return -1;
    },
    keys: () => keys.values(),
  };
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
