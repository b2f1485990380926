import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

describe('expandJobs with one huge matrix entry', () => {
  it('expands an entry past 120,000 jobs without overflowing the stack (issue #8)', async () => {
    const values = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
    // 400 × 330 = 132,000 jobs from one entry: `jobs.push(...expanded)` threw RangeError here.
    const loaded = await loadInline(`version: 1
name: huge
maxJobs: 200000
jobs:
  - id: 'j-{{ a }}-{{ b }}'
    model: m
    matrix:
      a: ${values(400)}
      b: ${values(330)}
`);
    const { jobs, issues } = expandJobs(loaded, context);
    expect(issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    expect(jobs).toHaveLength(132_000);
    expect(jobs.at(-1)?.id).toBe('j-399-329');
  }, 60_000);
});
