import type { ValidationIssue } from '../manifest/types.js';
import { describeTargetProblems, selectJobs, type Selection, type Targeting } from '../plan/select-jobs.js';

/** The targeting flags of a command (absent flags are empty lists). */
export function readTargeting(options: Record<string, unknown>): Targeting {
  return { only: list(options.only), exclude: list(options.exclude), replace: list(options.replace) };
}

function list(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  const items: unknown[] = Array.isArray(value) ? value : [value];
  return items.filter((item) => item !== undefined && item !== '').map(String);
}

/**
 * Applies targeting to the expanded jobs; a pattern that matches nothing is an error issue (reported
 * with the manifest's other problems), since a mistyped `--exclude` would run jobs meant to be left out.
 */
export function selectTargets<T extends { id: string }>(
  jobs: readonly T[],
  targeting: Targeting,
): Selection<T> & { issues: ValidationIssue[] } {
  const selection = selectJobs(jobs, targeting);
  return { ...selection, issues: describeTargetProblems(selection.problems) };
}
