import { getMatrixAxes, matrixValueText, type MatrixCombination } from './expand-matrix.js';
import { didYouMean } from '../suggest.js';
import type { LoadedManifest, SourceLocation, ValidationIssue, YamlPath } from './types.js';
import { formatYamlPath } from './yaml-path.js';

/** Names templates reserve for built-ins; vars and matrix keys cannot use them. */
export const RESERVED_NAMES: readonly string[] = ['date', 'index', 'env', 'job', '__proto__'];

/**
 * Checks the names templates will see: vars and matrix keys must not shadow a built-in, and every
 * key of an `exclude` entry must name an axis (otherwise the entry silently excludes nothing).
 */
export function checkReservedNames(loaded: LoadedManifest): ValidationIssue[] {
  const { manifest } = loaded;
  const locate = (path: YamlPath): SourceLocation => loaded.locateKey?.(path) ?? loaded.locate(path);
  const issues: ValidationIssue[] = [];
  const reserved = (name: string, path: YamlPath): void => {
    if (!RESERVED_NAMES.includes(name)) return;
    issues.push({
      severity: 'error',
      code: 'reserved-name',
      message: `"${name}" in ${formatYamlPath(path.slice(0, -1))} is reserved for the built-in {{ ${name} }}`,
      location: locate(path),
      hint: `rename it; reserved names: ${RESERVED_NAMES.filter((n) => n !== '__proto__').join(', ')}`,
    });
  };
  for (const name of Object.keys(manifest.vars ?? {})) reserved(name, ['vars', name]);
  manifest.jobs.forEach((spec, specIndex) => {
    if (!spec.matrix || loaded.invalidJobs?.has(specIndex) === true) return;
    const matrixPath: YamlPath = ['jobs', specIndex, 'matrix'];
    const axes = getMatrixAxes(spec.matrix).map(([name]) => name);
    for (const axis of axes) reserved(axis, [...matrixPath, axis]);
    spec.matrix.include?.forEach((entry, i) => {
      for (const key of Object.keys(entry)) reserved(key, [...matrixPath, 'include', i, key]);
    });
    spec.matrix.exclude?.forEach((entry, i) => {
      for (const key of Object.keys(entry)) {
        if (axes.includes(key)) continue;
        const issue: ValidationIssue = {
          severity: 'error',
          code: 'unknown-matrix-key',
          message: `exclude entry ${formatYamlPath([...matrixPath, 'exclude', i])} names "${key}", which is not an axis of this matrix`,
          location: locate([...matrixPath, 'exclude', i, key]),
        };
        const hint = didYouMean(key, axes);
        issue.hint = hint ?? `axes: ${axes.join(', ') || '(none)'}`;
        issues.push(issue);
      }
    });
  });
  return issues;
}

/** Where an undefined template name was met, for {@link describeMissingName}. */
export interface MissingNameContext {
  specIndex: number;
  /** The job's id as written (before rendering). */
  idSource: string;
  /** The expanded id when it rendered. */
  jobId?: string;
  combination: MatrixCombination;
  /** Names defined for this job entry, for the did-you-mean. */
  known: readonly string[];
  locate: (path: YamlPath) => SourceLocation;
}

/** The issue for a template name that is not defined: names the variable, the job and the place. */
export function describeMissingName(
  name: string,
  path: YamlPath,
  context: MissingNameContext,
): ValidationIssue {
  const values = Object.entries(context.combination)
    .map(([key, value]) => `${key}=${matrixValueText(value)}`)
    .join(', ');
  const job = context.jobId ?? context.idSource;
  const owner = `job "${job}" (jobs[${context.specIndex}]${values === '' ? '' : `, ${values}`})`;
  const where = formatYamlPath(path);
  const issue: ValidationIssue = name.startsWith('env.')
    ? {
        severity: 'error',
        code: 'undefined-env-var',
        message: `environment variable "${name.slice(4)}" is not set; ${where} of ${owner} uses {{ ${name} }}`,
        location: context.locate(path),
        hint: `set ${name.slice(4)} in the environment before running`,
      }
    : {
        severity: 'error',
        code: 'undefined-variable',
        message: `undefined variable "${name}" in ${where} of ${owner}`,
        location: context.locate(path),
        hint: context.known.includes(name)
          ? `"${name}" has a value in some combinations of this matrix but not in this one (include entries set keys for some combinations only); give every combination a value for it, or stop using it here`
          : (didYouMean(name, context.known) ??
            `defined here: ${context.known.join(', ')}; define it under vars: or as a matrix axis`),
      };
  if (context.jobId !== undefined) issue.jobId = context.jobId;
  return issue;
}
