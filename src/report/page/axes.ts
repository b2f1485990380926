import { canonicalJson } from '../../canonical-json.js';
import type { MatrixValue } from '../../manifest/types.js';
import type { PageEntry } from '../page-data.js';
import { shorten } from './dom.js';
import { data, entries } from './model.js';

/** One value of a matrix axis: its key (as the runner compares values), its label and the value. */
export interface AxisValue {
  key: string;
  label: string;
  value: MatrixValue;
}

/** Per axis: its values in order of first appearance. */
export const axisValues: Record<string, { list: AxisValue[]; byKey: Map<string, AxisValue> }> = {};
/** Per entry: its value key on each axis (undefined: the job has no value there). */
export const entryKeys: Record<string, string | undefined>[] = [];

/**
 * Matrix values: maps and lists are keyed by their JSON with sorted keys (as the runner compares
 * them, `canonicalJson`) and shown by a readable label: a map's name (or label, title, id), else short
 * key=value text.
 */
export function valueKey(value: MatrixValue | undefined): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : canonicalJson(value);
}

function keyValueText(value: MatrixValue): string {
  if (value === null) return '(none)';
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map(keyValueText).join(', ');
  return Object.keys(value)
    .map((key) => key + '=' + keyValueText(value[key] as MatrixValue))
    .join(' ');
}

function valueLabel(value: MatrixValue): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const named = ['name', 'label', 'title', 'id'].filter(
      (key) => typeof value[key] === 'string' || typeof value[key] === 'number',
    )[0];
    const found = named === undefined ? undefined : value[named];
    if (typeof found === 'string' || typeof found === 'number') return String(found);
  }
  return shorten(keyValueText(value), 60);
}

export function indexAxisValues(): void {
  data.axes.forEach((axis) => {
    axisValues[axis] = { list: [], byKey: new Map() };
  });
  entries.forEach((entry) => {
    const keys: Record<string, string | undefined> = {};
    data.axes.forEach((axis) => {
      const key = valueKey(entry.matrix[axis]);
      keys[axis] = key;
      const values = axisValues[axis]!;
      if (key === undefined || values.byKey.has(key)) return;
      const value = entry.matrix[axis] as MatrixValue;
      const item = { key, label: valueLabel(value), value };
      values.byKey.set(key, item);
      values.list.push(item);
    });
    entryKeys.push(keys);
  });
  // Two values with one label (two maps named alike) are told apart by their full text.
  data.axes.forEach((axis) => {
    const seen = new Map<string, number>();
    const list = axisValues[axis]!.list;
    list.forEach((item) => seen.set(item.label, (seen.get(item.label) ?? 0) + 1));
    list.forEach((item) => {
      if ((seen.get(item.label) ?? 0) > 1)
        item.label = shorten(item.label + ' (' + keyValueText(item.value) + ')', 90);
    });
  });
}

export function labelOf(axis: string, key: string | undefined): string {
  const item = key === undefined ? undefined : axisValues[axis]!.byKey.get(key);
  return item ? item.label : '';
}

/** The values of an axis that the given jobs have, in the axis' order. */
export function presentValues(axis: string, indexes: readonly number[]): AxisValue[] {
  const keys = new Set(indexes.map((index) => entryKeys[index]![axis]));
  return axisValues[axis]!.list.filter((item) => keys.has(item.key));
}

export function matrixText(entry: PageEntry): string {
  return data.axes
    .filter((axis) => axis in entry.matrix)
    .map((axis) => axis + '=' + labelOf(axis, valueKey(entry.matrix[axis])))
    .join(' · ');
}

export function paramText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
