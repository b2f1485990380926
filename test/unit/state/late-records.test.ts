import { describe, expect, it } from 'vitest';
import { replayJournal } from '../../../src/state/replay.js';

const lines = (...records: object[]) => records.map((record) => JSON.stringify(record)).join('\n') + '\n';
const intent = { type: 'intent', at: 1, id: 'v1', attempt: 1, payloadHash: 'h' };
const uncertain = { type: 'uncertain', at: 2, id: 'v1', attempt: 1, reason: 'no answer' };

/** Records a runner stores after its lease ended (#31.9), read by the replay with the usual checks. */
describe('late records', () => {
  it('a late job id of a create the taker called uncertain: the job is followed', () => {
    const late = { type: 'created', at: 3, id: 'v1', attempt: 1, jobId: 'job-1', late: true };
    const { jobs, warnings } = replayJournal(lines(intent, uncertain, late));
    expect(jobs.get('v1')?.status).toBe('open');
    expect(jobs.get('v1')?.attempts[0]?.jobId).toBe('job-1');
    expect(warnings).toEqual([]);
  });

  it('a late refusal of such a create: nothing was made, the job may be created again', () => {
    const late = {
      type: 'create-failed',
      at: 3,
      id: 'v1',
      attempt: 1,
      code: 'RATE_LIMITED',
      message: '429',
      final: false,
      late: true,
    };
    const { jobs } = replayJournal(lines(intent, uncertain, late));
    expect(jobs.get('v1')?.attempts[0]?.outcome).toBe('create-refused');
    expect(jobs.get('v1')?.status).toBe('pending');
  });

  it('a late record that no longer fits is passed over with a warning; the same record not late is corrupt', () => {
    const created = { type: 'created', at: 3, id: 'v1', attempt: 1, jobId: 'job-1' };
    const other = { type: 'created', at: 4, id: 'v1', attempt: 1, jobId: 'job-2' };
    const { jobs, warnings } = replayJournal(lines(intent, created, { ...other, late: true }));
    expect(jobs.get('v1')?.attempts[0]?.jobId).toBe('job-1');
    expect(warnings).toEqual([expect.stringMatching(/^Passed over line 3 .*late "created" record.*job-2/)]);
    expect(() => replayJournal(lines(intent, created, other))).toThrow(/corrupt at line 3/);
  });

  it('"late" is only ever true', () => {
    const bad = { type: 'created', at: 3, id: 'v1', attempt: 1, jobId: 'job-1', late: 'yes' };
    expect(() => replayJournal(lines(intent, bad))).toThrow(/corrupt at line 2/);
  });
});
