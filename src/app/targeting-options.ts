import type { ValidationIssue } from '../manifest/types.js';
import { describeTargetProblems, selectJobs, type Selection, type Targeting } from '../plan/select-jobs.js';

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
