import type { ValidationIssue } from './types.js';

/** How many other job ids a collapsed issue names before it says "and N more". */
const LISTED_JOBS = 3;

/**
 * Merges issues that are the same problem at the same place and differ only in the job they belong to
 * (a bad param under a matrix repeats once per expanded job). The first issue stays, its message
 * naming the other jobs, so 1,000 matrix jobs with one typo give one line, not 1,000. Order is kept.
 */
export function collapseIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  const groups = new Map<string, { first: ValidationIssue; others: string[] }>();
  const order: { first: ValidationIssue; others: string[] }[] = [];
  for (const issue of issues) {
    const where = issue.location === undefined ? '' : `${issue.location.line}:${issue.location.col}`;
    const key = [issue.severity, issue.code, where, issue.message, issue.hint ?? ''].join('\u0000');
    const group = groups.get(key);
    if (group !== undefined && issue.jobId !== undefined) {
      group.others.push(issue.jobId);
      continue;
    }
    const created = { first: issue, others: [] as string[] };
    if (issue.jobId !== undefined) groups.set(key, created);
    order.push(created);
  }
  return order.map(({ first, others }) => {
    if (others.length === 0) return first;
    const listed = others.slice(0, LISTED_JOBS).join(', ');
    const more = others.length > LISTED_JOBS ? ` and ${others.length - LISTED_JOBS} more` : '';
    return { ...first, message: `${first.message} (also in ${listed}${more})` };
  });
}
