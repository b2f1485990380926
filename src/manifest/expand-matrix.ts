import { canonicalJson } from '../canonical-json.js';
import type { MatrixSpec, MatrixValue } from './types.js';

/** One combination of matrix values: axis (or include key) → value. */
export type MatrixCombination = Record<string, MatrixValue>;

/** The axes of a matrix in declaration order (every key but `include` and `exclude`). */
export function getMatrixAxes(matrix: MatrixSpec): [string, MatrixValue[]][] {
  const axes: [string, MatrixValue[]][] = [];
  for (const [name, values] of Object.entries(matrix)) {
    if (name === 'include' || name === 'exclude' || !Array.isArray(values)) continue;
    axes.push([name, values as MatrixValue[]]);
  }
  return axes;
}

/** The size of the cross product of the axes, without building it (0 when there are no axes). */
export function countMatrixProduct(matrix: MatrixSpec): number {
  const axes = getMatrixAxes(matrix);
  if (axes.length === 0) return 0;
  return axes.reduce((product, [, values]) => product * values.length, 1);
}

/**
 * An upper bound of the combinations {@link expandMatrix} returns, without building them: the cross
 * product plus one per `include` entry (excludes only remove; a matching include adds nothing).
 */
export function countMatrixUpperBound(matrix: MatrixSpec): number {
  return countMatrixProduct(matrix) + (matrix.include?.length ?? 0);
}

/**
 * Expands a matrix like GitHub Actions does:
 * 1. the cross product of the axes in declaration order (the first axis varies slowest);
 * 2. `exclude`: a combination is dropped when it matches every key of an exclude entry;
 * 3. `include`: an entry whose keys that name axes all match a combination extends that combination
 *    with its other keys (never overwriting an axis value; values added by an earlier include may be
 *    overwritten); an entry that extends no combination is added as a new one.
 *
 * Pure: returns fresh objects and never mutates `matrix`. {@link iterateMatrix} gives the same
 * combinations one at a time.
 */
export function expandMatrix(matrix: MatrixSpec): MatrixCombination[] {
  return Array.from(iterateMatrix(matrix), (entry) => entry.combination);
}

/** One combination of {@link iterateMatrix} and the key to build it again with {@link combinationAt}. */
export interface IndexedCombination {
  combination: MatrixCombination;
  /**
   * The combination's index in the cross product before `exclude`, or the product's size plus the
   * index of the `include` entry that added it.
   */
  rawIndex: number;
}

/**
 * {@link expandMatrix} one combination at a time, in the same order, without holding the cross
 * product: a 1,000,000-combination matrix costs one combination object at a time.
 */
export function* iterateMatrix(matrix: MatrixSpec): Generator<IndexedCombination> {
  const axes = getMatrixAxes(matrix);
  const axisNames = new Set(axes.map(([name]) => name));
  const excludes = matrix.exclude ?? [];
  const includes = matrix.include ?? [];
  const extended = includes.map(() => false);
  const product = countMatrixProduct(matrix);
  const strides = axisStrides(axes);
  for (let rawIndex = 0; rawIndex < product; rawIndex++) {
    const combination = decodeProductIndex(axes, strides, rawIndex);
    if (excludes.length > 0 && excludes.some((entry) => matches(combination, entry))) continue;
    // A loop, not `forEach`: no closure made per combination of a 1,000,000-job matrix.
    for (let index = 0; index < includes.length; index++) {
      if (applyInclude(combination, includes[index]!, axisNames)) extended[index] = true;
    }
    yield { combination, rawIndex };
  }
  for (let index = 0; index < includes.length; index++) {
    if (!extended[index]) yield { combination: { ...includes[index] }, rawIndex: product + index };
  }
}

/**
 * The combination {@link iterateMatrix} yields with `rawIndex`, built again from the matrix alone (for
 * reports that keep an index per job instead of the job's values).
 */
export function combinationAt(matrix: MatrixSpec, rawIndex: number): MatrixCombination {
  let shape = shapes.get(matrix);
  if (shape === undefined) {
    const axes = getMatrixAxes(matrix);
    shape = {
      axes,
      strides: axisStrides(axes),
      axisNames: new Set(axes.map(([name]) => name)),
      product: countMatrixProduct(matrix),
    };
    shapes.set(matrix, shape);
  }
  const { axes, strides, axisNames, product } = shape;
  const includes = matrix.include ?? [];
  if (rawIndex >= product) return { ...includes[rawIndex - product] };
  const combination = decodeProductIndex(axes, strides, rawIndex);
  for (const entry of includes) applyInclude(combination, entry, axisNames);
  return combination;
}

/** The axes of each matrix {@link combinationAt} was asked about (matrices are never mutated). */
const shapes = new WeakMap<
  MatrixSpec,
  { axes: [string, MatrixValue[]][]; strides: number[]; axisNames: Set<string>; product: number }
>();

/** Per axis, the product of the sizes of the axes after it: its pick of entry `index` is index / stride mod size. */
function axisStrides(axes: [string, MatrixValue[]][]): number[] {
  const strides = axes.map(() => 1);
  for (let axis = axes.length - 2; axis >= 0; axis--)
    strides[axis] = strides[axis + 1]! * axes[axis + 1]![1].length;
  return strides;
}

/** Entry `index` of the cross product, the first axis varying slowest (`strides`: {@link axisStrides}). */
function decodeProductIndex(
  axes: [string, MatrixValue[]][],
  strides: readonly number[],
  index: number,
): MatrixCombination {
  const combination: MatrixCombination = {};
  for (let axis = 0; axis < axes.length; axis++) {
    const [name, values] = axes[axis]!;
    combination[name] = values[Math.floor(index / strides[axis]!) % values.length]!;
  }
  return combination;
}

/** Extends `combination` with the include entry's non-axis keys when its axis keys match. */
function applyInclude(
  combination: MatrixCombination,
  entry: MatrixCombination,
  axisNames: Set<string>,
): boolean {
  if (!matchesOnAxes(combination, entry, axisNames)) return false;
  for (const [key, value] of Object.entries(entry)) if (!axisNames.has(key)) combination[key] = value;
  return true;
}

function matches(combination: MatrixCombination, entry: MatrixCombination): boolean {
  for (const key in entry) if (!sameMatrixValue(combination[key], entry[key])) return false;
  return true;
}

function matchesOnAxes(combination: MatrixCombination, entry: MatrixCombination, axes: Set<string>): boolean {
  for (const key in entry) if (axes.has(key) && !sameMatrixValue(combination[key], entry[key])) return false;
  return true;
}

/**
 * Equality of matrix values as GitHub Actions compares them for include/exclude: scalars by value and
 * type (`1` is not `"1"`), maps and lists by content, whatever the key order.
 */
export function sameMatrixValue(a: MatrixValue | undefined, b: MatrixValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * A matrix value as template text: strings as they are, numbers and booleans as written, null as
 * empty text (as GitHub Actions renders it), maps and lists as canonical JSON.
 */
export function matrixValueText(value: MatrixValue | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return canonicalJson(value);
  return String(value);
}

/**
 * The value at a dotted template name inside a combination: `node.version` reads key `version` of
 * the map value of axis `node`. Undefined when the axis or a key on the way is missing.
 */
export function lookupMatrixName(combination: MatrixCombination, name: string): MatrixValue | undefined {
  if (Object.hasOwn(combination, name)) return combination[name];
  if (!name.includes('.')) return undefined;
  const [head = '', ...rest] = name.split('.');
  if (rest.length === 0 || !Object.hasOwn(combination, head)) return undefined;
  let value: MatrixValue | undefined = combination[head];
  for (const key of rest) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key))
      return undefined;
    value = value[key];
  }
  return value;
}

/**
 * Indexes of `exclude` entries that drop nothing: every key names an axis, but some value is not
 * among that axis's values (compared with their type, as {@link expandMatrix} does). Entries naming
 * a key that is not an axis are left out; they are reported as errors elsewhere.
 */
export function findUnmatchedExcludes(matrix: MatrixSpec): number[] {
  const axes = new Map(getMatrixAxes(matrix));
  const unmatched: number[] = [];
  (matrix.exclude ?? []).forEach((entry, index) => {
    const keys = Object.keys(entry);
    if (!keys.every((key) => axes.has(key))) return;
    if (keys.some((key) => !axes.get(key)!.some((value) => sameMatrixValue(value, entry[key]))))
      unmatched.push(index);
  });
  return unmatched;
}
