import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

describe('ids that differ only in letter case', () => {
  it('are a warning: on macOS and Windows their download files overwrite each other', async () => {
    const loaded = await loadInline(`version: 1
name: case
jobs:
  - { id: Hero-latte, model: m }
  - id: "hero-{{ p }}"
    model: m
    matrix: { p: [latte, Latte, mocha] }
`);
    const { jobs, issues } = expandJobs(loaded, context);
    expect(jobs).toHaveLength(4);
    expect(issues).toEqual([
      {
        severity: 'warning',
        code: 'ids-differ-in-case',
        message:
          'job ids "Hero-latte", "hero-latte" and "hero-Latte" differ only in letter case; on macOS and Windows their result files would overwrite each other',
        jobId: 'hero-latte',
        location: { file: 'inline.yaml', line: 5, col: 9 },
        hint: 'make the ids differ in more than case',
      },
    ]);
  });
});
