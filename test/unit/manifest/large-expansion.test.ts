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

  // 150,000 ids from two axes of 400 × 375 values, not one of 150,000: parsing a YAML list of 150,000
  // items took 16 s of the 45 s this test took at a load of 15 on 2 cores (60 s allowed), and only
  // the expansion is under test here.
  it('reports 150,000 duplicate ids, one error each, without overflowing the stack', async () => {
    const values = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
    // The id leaves out axis b: every id is produced twice. `issues.push(...)` of them threw RangeError.
    const loaded = await loadInline(`version: 1
name: pairs
maxJobs: 400000
jobs:
  - id: 'j-{{ a }}-{{ c }}'
    model: m
    matrix:
      a: ${values(400)}
      c: ${values(375)}
      b: [x, y]
`);
    const { issues } = expandJobs(loaded, context);
    const duplicates = issues.filter((issue) => issue.code === 'duplicate-id');
    expect(duplicates).toHaveLength(150_000);
    expect(duplicates.at(-1)?.jobId).toBe('j-399-374');
  }, 60_000);

  it('reports 150,000 ids equal but for case without overflowing the stack', async () => {
    const values = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
    const loaded = await loadInline(`version: 1
name: cases
maxJobs: 400000
jobs:
  - id: '{{ b }}-{{ a }}-{{ c }}'
    model: m
    matrix:
      a: ${values(400)}
      c: ${values(375)}
      b: [J, j]
`);
    const { issues } = expandJobs(loaded, context);
    expect(issues.filter((issue) => issue.severity === 'error')).toEqual([]);
    expect(issues.length).toBeGreaterThanOrEqual(150_000);
  }, 60_000);
});
