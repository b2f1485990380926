import { matrixValueText } from './expand-matrix.js';
import { findUnmatchedExcludes, getMatrixAxes } from './expand-matrix.js';
import { didYouMean } from '../suggest.js';
import type { MatrixSpec, MatrixValue, SourceLocation, ValidationIssue, YamlPath } from './types.js';
import { formatYamlPath } from './yaml-path.js';

/** A warning per exclude entry that drops nothing: a typo there would run (and pay for) unwanted jobs. */
export function reportUnmatchedExcludes(
  matrix: MatrixSpec,
  specIndex: number,
  locate: (path: YamlPath) => SourceLocation,
  issues: ValidationIssue[],
): void {
  const axes = new Map(getMatrixAxes(matrix));
  for (const index of findUnmatchedExcludes(matrix)) {
    const path: YamlPath = ['jobs', specIndex, 'matrix', 'exclude', index];
    const entry = matrix.exclude?.[index] ?? {};
    const values = Object.entries(entry)
      .map(([key, value]) => `${key}=${formatMatrixValue(value)}`)
      .join(', ');
    issues.push({
      severity: 'warning',
      code: 'exclude-matches-nothing',
      message: `exclude entry ${formatYamlPath(path)} (${values}) matches no combination of the matrix, so it drops nothing`,
      location: locate(path),
      hint: hintFor(entry, axes),
    });
  }
}

/** Names the first value not on its axis: a type mix-up, a likely typo, or the axis's values. */
function hintFor(
  entry: Record<string, MatrixValue>,
  axes: ReadonlyMap<string, readonly MatrixValue[]>,
): string {
  for (const [key, value] of Object.entries(entry)) {
    const values = axes.get(key) ?? [];
    if (values.includes(value)) continue;
    if (values.some((v) => matrixValueText(v) === matrixValueText(value))) {
      return `values are compared with their YAML type: ${key}=${formatMatrixValue(value)} is a ${typeof value}, the axis holds a ${typeof values.find((v) => matrixValueText(v) === matrixValueText(value))}`;
    }
    const suggestion = didYouMean(matrixValueText(value), values.map(matrixValueText));
    return suggestion ?? `axis "${key}" has: ${values.map(formatMatrixValue).join(', ')}`;
  }
  return 'check each value against its axis';
}

/** A matrix value for a message; a string that reads like a number or boolean keeps its quotes. */
function formatMatrixValue(value: MatrixValue): string {
  if (typeof value !== 'string') return matrixValueText(value);
  const ambiguous = /^(true|false)$/.test(value) || (value.trim() !== '' && !Number.isNaN(Number(value)));
  return ambiguous ? JSON.stringify(value) : value;
}
