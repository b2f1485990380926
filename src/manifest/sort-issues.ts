import type { ValidationIssue } from './types.js';

/**
 * Issues in reading order: those without a location first (they concern the whole file), then by
 * file, line and column; equal positions keep their original order.
 */
export function sortIssues(issues: readonly ValidationIssue[]): ValidationIssue[] {
  return issues
    .map((issue, order) => ({ issue, order }))
    .sort((a, b) => {
      const la = a.issue.location;
      const lb = b.issue.location;
      if (!la || !lb) return la === lb ? a.order - b.order : la ? 1 : -1;
      if (la.file !== lb.file) return la.file < lb.file ? -1 : 1;
      return la.line - lb.line || la.col - lb.col || a.order - b.order;
    })
    .map(({ issue }) => issue);
}
