import { describe, expect, it } from 'vitest';
import { collapseIssues } from '../../../src/manifest/collapse-issues.js';
import type { ValidationIssue } from '../../../src/manifest/types.js';

const at = (line: number, col: number) => ({ file: 'p.yaml', line, col });
const issue = (jobId: string, overrides: Partial<ValidationIssue> = {}): ValidationIssue => ({
  severity: 'error',
  code: 'invalid-param',
  message: 'param "dpi" must be a number from 1 to 1200; received 5000 (number)',
  jobId,
  location: at(12, 12),
  ...overrides,
});

describe('collapseIssues', () => {
  it('merges the same problem at the same place across matrix jobs, naming the others', () => {
    const merged = collapseIssues(['a', 'b', 'c', 'd', 'e'].map((id) => issue(id)));
    expect(merged).toHaveLength(1);
    expect(merged[0]!.jobId).toBe('a');
    expect(merged[0]!.message).toBe(
      'param "dpi" must be a number from 1 to 1200; received 5000 (number) (also in b, c, d and 1 more)',
    );
  });

  it('keeps issues apart when place, code, message or severity differ, in their order', () => {
    const issues = [
      issue('a'),
      issue('a', { location: at(13, 1) }),
      issue('b', { code: 'unknown-param' }),
      issue('c', { message: 'other' }),
      issue('d', { severity: 'warning' }),
    ];
    expect(collapseIssues(issues)).toEqual(issues);
  });

  it('never merges issues that belong to no job', () => {
    const global = { severity: 'error', code: 'x', message: 'm', location: at(1, 1) } as const;
    expect(collapseIssues([global, global])).toHaveLength(2);
  });
});
