import type { MatrixValue } from '../manifest/types.js';

/** Readable labels are cut to this many characters. */
const MAX_LABEL = 60;

/**
 * A matrix value as a reader knows it: a string or number as itself, a map by its `name` (or
 * `label`, `title`, `id`), else short `key=value` text; lists joined with commas. The same rule as
 * the HTML report's filters, so a value reads the same in both.
 */
export function axisValueLabel(value: MatrixValue | undefined): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const key of ['name', 'label', 'title', 'id']) {
      const named = value[key];
      if (typeof named === 'string' || typeof named === 'number') return String(named);
    }
  }
  const text = keyValueText(value);
  return text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text;
}

function keyValueText(value: MatrixValue | undefined): string {
  if (value === null || value === undefined) return '(none)';
  if (typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map(keyValueText).join(', ');
  return Object.keys(value)
    .map((key) => `${key}=${keyValueText(value[key])}`)
    .join(' ');
}
