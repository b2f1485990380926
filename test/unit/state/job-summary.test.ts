import { describe, it, expect } from 'vitest';
import { replayJournal } from '../../../src/state/replay.js';
import { summarizeJob, sumBudgetedCredits, sumChargedCredits } from '../../../src/state/job-state.js';

/** A job's state from journal records, as every command gets it. */
function stateOf(records: object[]) {
  const job = replayJournal(
    records.map((record) => JSON.stringify({ at: 1, ...record })).join('\n'),
  ).jobs.get('a');
  if (job === undefined) throw new Error('no job a');
  return job;
}

const intent = (attempt: number, payloadHash = 'h') => ({ type: 'intent', id: 'a', attempt, payloadHash });
const created = (attempt: number, creditCost?: number) => ({
  type: 'created',
  id: 'a',
  attempt,
  jobId: `s${attempt}`,
  ...(creditCost === undefined ? { estimatedCredits: 7 } : { creditCost }),
});
const completed = (attempt: number, urls: string[]) => ({
  type: 'completed',
  id: 'a',
  attempt,
  resultUrls: urls,
});
const downloaded = (url: string) => ({
  type: 'downloaded',
  id: 'a',
  url,
  file: `/out/${url}`,
  bytes: 1,
  sha256: 'x',
});

describe('summarizeJob (what passes a finished job by without its attempts)', () => {
  it('lists the files in the order of the result URLs, and the order of download when it differs', () => {
    const job = stateOf([
      intent(1),
      created(1, 4),
      completed(1, ['u1', 'u2']),
      downloaded('u2'),
      downloaded('u1'),
    ]);
    expect(summarizeJob(job)).toEqual({
      id: 'a',
      payloadHash: 'h',
      status: 'done',
      attempts: 1,
      lastAttempt: 1,
      lastJobId: 's1',
      charged: 4,
      budgeted: 4,
      files: ['/out/u1', '/out/u2'],
      downloadFiles: ['/out/u2', '/out/u1'],
      complete: true,
    });
  });

  it('is not complete while a result is not downloaded, or files of a replaced attempt wait to be moved', () => {
    const partial = stateOf([intent(1), created(1, 4), completed(1, ['u1', 'u2']), downloaded('u1')]);
    expect(summarizeJob(partial)).toMatchObject({ complete: false, files: ['/out/u1'] });
    expect(summarizeJob(partial).downloadFiles).toBeUndefined();

    const replaced = stateOf([
      intent(1),
      created(1, 4),
      completed(1, ['u1']),
      downloaded('u1'),
      intent(2, 'h2'),
      created(2),
      completed(2, ['v1']),
      downloaded('v1'),
    ]);
    expect(summarizeJob(replaced)).toMatchObject({
      payloadHash: 'h2',
      attempts: 2,
      lastAttempt: 2,
      lastJobId: 's2',
      files: ['/out/v1'],
      complete: false,
    });
    // Charged: the service's costs only; budgeted: the estimate stands in for a cost not reported.
    expect([summarizeJob(replaced).charged, summarizeJob(replaced).budgeted]).toEqual([
      sumChargedCredits(replaced),
      sumBudgetedCredits(replaced),
    ]);
    expect([sumChargedCredits(replaced), sumBudgetedCredits(replaced)]).toEqual([4, 11]);
  });

  it('names the latest attempt’s payload hash only when it is not the job’s', () => {
    // An attempt record without its intent (a hand-edited journal) has the job's hash: no difference.
    expect(summarizeJob(stateOf([intent(1), created(1, 4)])).lastPayloadHash).toBeUndefined();
    const failed = stateOf([
      intent(1),
      created(1, 4),
      { type: 'failed', id: 'a', attempt: 1, failureKind: 'X', error: 'e', willRetry: false },
    ]);
    expect(summarizeJob(failed)).toMatchObject({
      status: 'failed',
      complete: false,
      charged: 0,
      budgeted: 0,
    });
  });
});
