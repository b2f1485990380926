import { describe, expect, it } from 'vitest';
import type { AttemptState, JobState } from '../../../src/state/job-state.js';
import { findUnfinishedWork, MAX_LISTED_IDS } from '../../../src/state/unfinished-work.js';

function job(
  id: string,
  status: JobState['status'],
  last: Partial<AttemptState> = {},
  saved: string[] = [],
): JobState {
  const attempt: AttemptState = {
    attempt: 1,
    payloadHash: 'h',
    intentAt: 0,
    outcome: 'open',
    resultUrls: [],
    ...last,
  };
  return {
    id,
    payloadHash: 'h',
    status,
    attempts: [attempt],
    downloads: saved.map((url) => ({ url, file: `/out/${id}.png`, bytes: 1, sha256: 'x', at: 0 })),
  };
}

describe('findUnfinishedWork', () => {
  const done = (id: string, urls: string[], saved: string[]) =>
    job(id, 'done', { outcome: 'done', resultUrls: urls }, saved);

  it('counts open and creating jobs, and done jobs with a result not downloaded', () => {
    const jobs = new Map(
      [
        job('open', 'open', { jobId: 'j1' }),
        job('creating', 'creating', { outcome: 'creating' }),
        done('saved', ['u1'], ['u1']),
        done('owed', ['u2', 'u3'], ['u2']),
        job('failed', 'failed', { outcome: 'failed' }),
        job('pending', 'pending', { outcome: 'retry' }),
        job('uncertain', 'uncertain', { outcome: 'uncertain' }),
      ].map((state) => [state.id, state]),
    );
    expect(findUnfinishedWork(jobs, true)).toEqual({
      open: 2,
      undownloaded: 1,
      ids: ['open', 'creating', 'owed'],
    });
    // A run applied with --no-download owes no file.
    expect(findUnfinishedWork(jobs, false)).toEqual({ open: 2, undownloaded: 0, ids: ['open', 'creating'] });
  });

  it('lists a bounded number of ids', () => {
    const many = new Map(
      Array.from({ length: 20 }, (_, index) => job(`j${index}`, 'open')).map((state) => [state.id, state]),
    );
    const work = findUnfinishedWork(many, true);
    expect(work.open).toBe(20);
    expect(work.ids).toHaveLength(MAX_LISTED_IDS);
  });
});
