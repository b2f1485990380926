type TypedArray = Uint8Array | Uint32Array | Float64Array;
type TypedArrayClass<T extends TypedArray> = new (length: number) => T;

/** A typed array that grows as numbers are pushed: 1 to 8 bytes per entry instead of a JS array's 8+. */
export interface GrowableArray {
  readonly length: number;
  push(value: number): void;
  /** The entry at `index` (0 past the end). */
  at(index: number): number;
  set(index: number, value: number): void;
}

/**
 * A growable typed array (doubling). For per-job indexes that must stay small at a million jobs.
 *
 * @example const credits = createGrowableArray(Float64Array); credits.push(4);
 */
export function createGrowableArray<T extends TypedArray>(
  Kind: TypedArrayClass<T>,
  capacity = 1024,
): GrowableArray {
  let items = new Kind(capacity);
  let length = 0;
  return {
    get length() {
      return length;
    },
    push(value) {
      if (length === items.length) {
        const bigger = new Kind(items.length * 2);
        bigger.set(items);
        items = bigger;
      }
      items[length++] = value;
    },
    at: (index) => items[index] ?? 0,
    set(index, value) {
      items[index] = value;
    },
  };
}
