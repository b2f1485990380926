import { describe, it, expect } from 'vitest';
import { replayJournal } from '../../../src/state/replay.js';
import { buildStatusView } from '../../../src/state/status-view.js';
import { resolveStateDir, toSafeSegment } from '../../../src/state/state-dir.js';

const journal = [
  { type: 'intent', at: 1, id: 'a', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: 2, id: 'a', attempt: 1, jobId: 'J1', creditCost: 4, chargeSource: 'Credit' },
  { type: 'completed', at: 3, id: 'a', attempt: 1, resultUrls: ['u'], creditCost: 4, chargeSource: 'Credit' },
  { type: 'downloaded', at: 4, id: 'a', url: 'u', file: '/o/a.png', bytes: 3, sha256: 's' },
  { type: 'intent', at: 5, id: 'b', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: 6, id: 'b', attempt: 1, jobId: 'J2', creditCost: 7 },
  {
    type: 'failed',
    at: 7,
    id: 'b',
    attempt: 1,
    failureKind: 'PROMPT_UNCLEAR',
    error: 'vague',
    willRetry: false,
  },
  { type: 'intent', at: 8, id: 'c', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: 9, id: 'c', attempt: 1, jobId: 'J3', creditCost: 2 },
  { type: 'deferred', at: 10, id: 'c', attempt: 1, failureKind: 'QUOTA_EXHAUSTED', notBefore: 0 },
]
  .map((record) => JSON.stringify(record))
  .join('\n');

describe('buildStatusView', () => {
  it('names the machine of each job when the state knows it (several machines on one run)', () => {
    const { jobs } = replayJournal(journal);
    const view = buildStatusView(
      jobs,
      ['a', 'b', 'c', 'd'],
      new Map([
        ['a', 'ci-1'],
        ['b', 'ci-2'],
      ]),
    );
    expect(view.jobs.map((job) => job.machine)).toEqual(['ci-1', 'ci-2', undefined, undefined]);
    expect(buildStatusView(jobs).jobs.every((job) => !('machine' in job))).toBe(true);
  });

  it('projects jobs with status, attempts, failureKind, refunded cost and files', () => {
    const view = buildStatusView(replayJournal(journal).jobs, ['z', 'a', 'b', 'c']);
    expect(view.jobs).toEqual([
      { id: 'z', status: 'pending', attempts: 0, creditCost: 0, files: [] },
      {
        id: 'a',
        status: 'done',
        attempts: 1,
        jobId: 'J1',
        creditCost: 4,
        chargeSource: 'Credit',
        files: [{ file: '/o/a.png', bytes: 3, sha256: 's' }],
      },
      {
        id: 'b',
        status: 'failed',
        attempts: 1,
        jobId: 'J2',
        failureKind: 'PROMPT_UNCLEAR',
        error: 'vague',
        creditCost: 0,
        files: [],
      },
      {
        id: 'c',
        status: 'deferred',
        attempts: 1,
        jobId: 'J3',
        failureKind: 'QUOTA_EXHAUSTED',
        notBefore: '1970-01-01T00:00:00.000Z',
        creditCost: 0,
        files: [],
      },
    ]);
    expect(view.totals).toEqual({
      jobs: 4,
      pending: 1,
      creating: 0,
      open: 0,
      done: 1,
      downloading: 0,
      failed: 1,
      deferred: 1,
      uncertain: 0,
      creditsSpent: 4,
    });
  });

  it('shows a done job whose results are not all downloaded as downloading, with what is owed (#20.8)', () => {
    const owing = [
      { type: 'intent', at: 1, id: 'd', attempt: 1, payloadHash: 'h' },
      { type: 'created', at: 2, id: 'd', attempt: 1, jobId: 'J4', creditCost: 4 },
      { type: 'completed', at: 3, id: 'd', attempt: 1, resultUrls: ['https://r/1.png', 'https://r/2.png'] },
      { type: 'downloaded', at: 4, id: 'd', url: 'https://r/1.png', file: '/o/d.png', bytes: 3, sha256: 's' },
    ]
      .map((record) => JSON.stringify(record))
      .join('\n');
    const view = buildStatusView(replayJournal(owing).jobs);
    expect(view.jobs[0]).toMatchObject({
      status: 'downloading',
      resultsOwed: 1,
      resultsExpireAt: new Date(3 + 7 * 24 * 3600 * 1000).toISOString(),
    });
    expect(view.totals).toMatchObject({ done: 0, downloading: 1 });
  });
});

describe('resolveStateDir', () => {
  it('puts state next to the manifest per pipeline and run, with safe names', () => {
    expect(resolveStateDir({ manifestFile: '/p/m.yaml', pipeline: 'My Pipe/../x', runId: 'r1' })).toBe(
      '/p/.runner/My_Pipe_.._x/r1',
    );
    // --state-dir keeps the same <pipeline>/<run>/ layout (#7.1).
    expect(resolveStateDir({ manifestFile: '/p/m.yaml', pipeline: 'x', runId: 'r', stateDir: '/s' })).toBe(
      '/s/x/r',
    );
    expect(toSafeSegment('..')).toBe('_');
    expect(toSafeSegment('')).toBe('_');
  });
});
