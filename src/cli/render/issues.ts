import { formatIssue } from '../../manifest/format-issue.js';
import type { ValidationIssue } from '../../manifest/types.js';
import type { Style } from '../../text-style.js';

/** Every issue, one block each, then a count line: `2 errors, 1 warning in pipeline.yaml`. */
export function renderIssues(issues: readonly ValidationIssue[], file: string, style: Style): string {
  const errors = issues.filter((issue) => issue.severity === 'error').length;
  const warnings = issues.length - errors;
  const blocks = issues.map((issue) => {
    const text = formatIssue(issue);
    return issue.severity === 'error'
      ? text.replace(/ error /, ` ${style.red('error')} `)
      : text.replace(/ warning /, ` ${style.yellow('warning')} `);
  });
  const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;
  const summary = `${plural(errors, 'error')}, ${plural(warnings, 'warning')} in ${file}`;
  return [...blocks, errors > 0 ? style.red(summary) : summary].join('\n');
}

/** The `--json` shape of validation issues. */
export function issuesToJson(issues: readonly ValidationIssue[], file: string): object {
  const errors = issues.filter((issue) => issue.severity === 'error').length;
  return {
    schemaVersion: 1,
    manifestFile: file,
    valid: errors === 0,
    errors,
    warnings: issues.length - errors,
    issues,
  };
}
