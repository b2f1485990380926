import { countMatrixProduct, countMatrixUpperBound, getMatrixAxes } from './expand-matrix.js';
import type { LoadedManifest, SourceLocation, ValidationIssue, YamlPath } from './types.js';

/** The maxJobs guard when neither the manifest nor the command line sets one. */
export const DEFAULT_MAX_JOBS = 1000;

/**
 * The matrix-explosion guard, computed before anything is expanded: an issue per job entry whose
 * matrix alone exceeds `maxJobs`, or one for the whole manifest when only the sum does.
 */
export function checkJobCount(loaded: LoadedManifest, maxJobs: number): ValidationIssue[] {
  const { manifest } = loaded;
  const locate = (path: YamlPath): SourceLocation => loaded.locate(path);
  const hint = 'narrow the matrix, or raise maxJobs in the manifest or with --max-jobs if this is intended';
  const issues: ValidationIssue[] = [];
  let total = 0;
  manifest.jobs.forEach((spec, index) => {
    if (loaded.invalidJobs?.has(index) === true) return;
    const count = spec.matrix ? countMatrixUpperBound(spec.matrix) : 1;
    total += count;
    if (!spec.matrix || count <= maxJobs) return;
    const axes = getMatrixAxes(spec.matrix);
    const product = countMatrixProduct(spec.matrix);
    const formula = axes.map(([name, values]) => `${values.length} ${name}`).join(' × ');
    const includes = spec.matrix.include?.length ?? 0;
    issues.push({
      severity: 'error',
      code: 'too-many-jobs',
      message:
        `jobs[${index}] (id "${spec.id}") expands to ${product} jobs (${formula})` +
        (includes > 0 ? ` plus up to ${includes} included` : '') +
        `, more than maxJobs ${maxJobs}`,
      location: locate(['jobs', index, 'matrix']),
      hint,
    });
  });
  if (issues.length === 0 && total > maxJobs) {
    issues.push({
      severity: 'error',
      code: 'too-many-jobs',
      message: `the manifest expands to up to ${total} jobs, more than maxJobs ${maxJobs}`,
      location: locate(['jobs']),
      hint,
    });
  }
  return issues;
}
