import { describe, expect, it } from 'vitest';
import { judgeRun } from '../../../src/state/run-verdict.js';

/** apply's exit reason and status's outcome read one verdict (#33.11). */
describe('judgeRun', () => {
  it('is finished only when every job is done with its results saved', () => {
    expect(judgeRun({ jobs: 3, done: 3, downloading: 0 })).toBe('finished');
    expect(judgeRun({ jobs: 0, done: 0, downloading: 0 })).toBe('finished');
    expect(judgeRun({ jobs: 3, done: 2, downloading: 1 })).toBe('results-unsaved');
    // A failed, deferred, uncertain or unsent job, with or without results owed.
    expect(judgeRun({ jobs: 3, done: 2, downloading: 0 })).toBe('unfinished');
    expect(judgeRun({ jobs: 3, done: 1, downloading: 1 })).toBe('unfinished');
  });
});
