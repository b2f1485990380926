import { describe, expect, it } from 'vitest';
import { readDecisionsText } from '../../../src/review/read-decisions.js';
import type { ReviewDecision } from '../../../src/review/decisions.js';
import {
  collectRejections,
  selectDueRejections,
  selectRejectedJobs,
} from '../../../src/review/select-rejected.js';

const IDS = ['hero-latte', 'hero-mocha', 'hero-chai'];

function readFile(decisions: Partial<ReviewDecision>[], head: Record<string, unknown> = {}) {
  const text = JSON.stringify(
    {
      kind: 'runner-review-decisions',
      schemaVersion: 1,
      pipeline: 'nightly',
      runId: 'night-1',
      decisions,
      ...head,
    },
    null,
    2,
  );
  const read = readDecisionsText(text, 'd.json');
  if (!read.ok) throw new Error(JSON.stringify(read.issues));
  return read;
}
const decision = (jobId: string, value: 'approved' | 'rejected', extra: Partial<ReviewDecision> = {}) => ({
  jobId,
  decision: value,
  attempt: 1,
  payloadHash: `hash-${jobId}`,
  ...extra,
});
const run = { runId: 'night-1', pipeline: 'nightly', jobIds: IDS };

describe('collectRejections', () => {
  it('rejects a job through the job or any of its results, with the notes of each', () => {
    const { rejections, issues } = collectRejections(
      readFile([
        decision('hero-latte', 'rejected', { file: 2, note: 'cropped' }),
        decision('hero-latte', 'approved', { file: 1 }),
        decision('hero-mocha', 'approved'),
        decision('hero-chai', 'rejected', { note: 'wrong colour' }),
        decision('hero-chai', 'rejected', { file: 1, note: ' too dark ' }),
      ]),
      run,
    );
    expect(issues).toEqual([]);
    expect(rejections.map(({ jobId, attempt, note, files }) => ({ jobId, attempt, note, files }))).toEqual([
      { jobId: 'hero-latte', attempt: 1, note: 'result 2: cropped', files: [2] },
      { jobId: 'hero-chai', attempt: 1, note: 'wrong colour\nresult 1: too dark', files: [] },
    ]);
  });

  it('names every problem at once: another run or pipeline, unknown jobs (did you mean), duplicates, mixed attempts', () => {
    const { issues } = collectRejections(
      readFile(
        [
          decision('hero-latt', 'rejected'),
          decision('hero-mocha', 'approved'),
          decision('hero-mocha', 'rejected'),
          decision('hero-chai', 'rejected', { file: 1 }),
          decision('hero-chai', 'rejected', { attempt: 2 }),
        ],
        { runId: 'night-2', pipeline: 'weekly' },
      ),
      run,
    );
    expect(issues.map((issue) => [issue.code, issue.location?.line, issue.hint])).toEqual([
      ['decisions-other-run', 5, "pass --run night-2 to re-generate that run's rejected jobs"],
      ['decisions-other-pipeline', 4, undefined],
      ['unknown-job', 8, 'did you mean "hero-latte"?'],
      ['duplicate-decision', 19, 'keep one decision per job and per result'],
      ['mixed-attempts', 35, 'decide each job on the attempt its report shows'],
    ]);
  });
});

describe('selectDueRejections', () => {
  const rejections = collectRejections(
    readFile([
      decision('hero-latte', 'rejected', { note: 'blurry' }),
      decision('hero-mocha', 'rejected'),
      decision('hero-chai', 'rejected'),
    ]),
    run,
  ).rejections;

  it('re-generates a job whose rejected attempt is its latest, skips one re-generated since', () => {
    const state = new Map([
      ['hero-latte', { attempts: [{ attempt: 1, payloadHash: 'hash-hero-latte' }] }],
      [
        'hero-mocha',
        {
          attempts: [
            { attempt: 1, payloadHash: 'hash-hero-mocha' },
            { attempt: 2, payloadHash: 'hash-hero-mocha' },
          ],
        },
      ],
      ['hero-chai', { attempts: [{ attempt: 1, payloadHash: 'hash-hero-chai' }] }],
    ]);
    const due = selectDueRejections(rejections, (id) => state.get(id));
    expect(due.issues).toEqual([]);
    expect(due.due.map((rejection) => rejection.jobId)).toEqual(['hero-latte', 'hero-chai']);
    expect(due.skipped.map((skip) => skip.message)).toEqual([
      'hero-mocha: rejected on attempt 1, already re-generated (attempt 2 is its latest): skipped, not paid for again.',
    ]);
  });

  it('refuses decisions on an attempt or a payload the state does not have', () => {
    const state = new Map([
      ['hero-latte', { attempts: [{ attempt: 1, payloadHash: 'another-hash' }] }],
      ['hero-chai', { attempts: [{ attempt: 1, payloadHash: 'hash-hero-chai' }] }],
    ]);
    const due = selectDueRejections(rejections, (id) => state.get(id));
    expect(due.issues.map((issue) => [issue.code, issue.jobId])).toEqual([
      ['decision-other-payload', 'hero-latte'],
      ['decision-unknown-attempt', 'hero-mocha'],
    ]);
    expect(due.due.map((rejection) => rejection.jobId)).toEqual(['hero-chai']);
  });

  it('selects the rejected jobs in manifest order, the rest left out', () => {
    expect(
      selectRejectedJobs(
        IDS.map((id) => ({ id })),
        rejections.slice(1),
      ),
    ).toEqual({
      selected: [{ id: 'hero-mocha' }, { id: 'hero-chai' }],
      leftOut: ['hero-latte'],
    });
  });
});
