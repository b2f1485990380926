import type { SourceLocation, ValidationIssue } from './types.js';

/**
 * One issue as the CLI prints it: `pipeline.yaml:12:7 error [hero-latte] unknown-param: message`,
 * then `  hint: ...` on its own indented line when there is a hint.
 */
export function formatIssue(issue: ValidationIssue): string {
  const head = [
    issue.location ? formatLocation(issue.location) : undefined,
    issue.severity,
    issue.jobId === undefined ? undefined : `[${issue.jobId}]`,
    `${issue.code}:`,
  ]
    .filter((part) => part !== undefined)
    .join(' ');
  const line = `${head} ${issue.message}`;
  return issue.hint === undefined ? line : `${line}\n  hint: ${issue.hint}`;
}

/** `file:line:col`. */
export function formatLocation(location: SourceLocation): string {
  return `${location.file}:${location.line}:${location.col}`;
}
