import { describe, expect, it } from 'vitest';
import type { CostReport } from '../../../src/plan/cost-report.js';
import { addTargetingToReport, forgetReplacedJobs } from '../../../src/plan/targeting-report.js';
import type { JobState } from '../../../src/state/job-state.js';

const report = { schemaVersion: 1, notes: ['n'] } as unknown as CostReport;

describe('addTargetingToReport', () => {
  it('leaves an untargeted report as it is', () => {
    expect(addTargetingToReport(report, { only: [], exclude: [], replace: [] }, [])).toBe(report);
  });

  it('adds the targeting field and a note naming what was left out', () => {
    const leftOut = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    const out = addTargetingToReport(report, { only: ['x*'], exclude: [], replace: ['x1'] }, leftOut);
    expect(out.targeting).toEqual({ only: ['x*'], exclude: [], replace: ['x1'], leftOut });
    expect(out.notes).toEqual([
      'n',
      '--only x* left out 7 jobs of the manifest (a, b, c, d, e and 2 more): not planned, priced or run.',
      '--replace: x1 run again as a new attempt, even if done.',
    ]);
    expect(report.notes).toEqual(['n']);
  });
});

describe('forgetReplacedJobs', () => {
  it('drops replaced jobs from the previous state so they are priced again', () => {
    const jobs = new Map([
      ['a', {} as JobState],
      ['b', {} as JobState],
    ]);
    expect([...forgetReplacedJobs(jobs, ['a']).keys()]).toEqual(['b']);
    expect(forgetReplacedJobs(jobs, [])).toBe(jobs);
  });
});
