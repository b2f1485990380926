import { describe, expect, it } from 'vitest';
import { expandJobs } from '../../../src/manifest/expand-jobs.js';
import { context, loadInline } from './helpers.js';

describe('an exclude entry that matches no combination', () => {
  it('is a warning at the entry: a typo in it would silently run (and pay for) the jobs meant to be dropped', async () => {
    const loaded = await loadInline(`version: 1
name: excl
jobs:
  - id: "x-{{ size }}-{{ style }}"
    model: m
    matrix:
      size: [1, 2]
      style: [film, ink]
      exclude:
        - { size: 1, style: film }
        - { size: "2", style: ink }
        - { style: watercolour }
        - { style: flim }
`);
    const { jobs, issues } = expandJobs(loaded, context);
    expect(jobs.map((job) => job.id)).toEqual(['x-1-ink', 'x-2-film', 'x-2-ink']);
    expect(issues).toEqual([
      {
        severity: 'warning',
        code: 'exclude-matches-nothing',
        message:
          'exclude entry jobs[0].matrix.exclude[1] (size="2", style=ink) matches no combination of the matrix, so it drops nothing',
        location: { file: 'inline.yaml', line: 11, col: 11 },
        hint: 'values are compared with their YAML type: size="2" is a string, the axis holds a number',
      },
      {
        severity: 'warning',
        code: 'exclude-matches-nothing',
        message:
          'exclude entry jobs[0].matrix.exclude[2] (style=watercolour) matches no combination of the matrix, so it drops nothing',
        location: { file: 'inline.yaml', line: 12, col: 11 },
        hint: 'axis "style" has: film, ink',
      },
      {
        severity: 'warning',
        code: 'exclude-matches-nothing',
        message:
          'exclude entry jobs[0].matrix.exclude[3] (style=flim) matches no combination of the matrix, so it drops nothing',
        location: { file: 'inline.yaml', line: 13, col: 11 },
        hint: 'did you mean "film"?',
      },
    ]);
  });

  it('is not reported again for an entry already reported as naming an unknown axis', async () => {
    const loaded = await loadInline(`version: 1
name: excl
jobs:
  - id: "a-{{ size }}"
    model: m
    matrix: { size: [s, m], exclude: [{ sise: s }] }
`);
    expect(expandJobs(loaded, context).issues.map((issue) => issue.code)).toEqual(['unknown-matrix-key']);
  });
});
