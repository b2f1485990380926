import { describe, it, expect } from 'vitest';
import { JournalLineError, replayJournal } from '../../../src/state/replay.js';

const done = [
  { type: 'journal', at: 0, version: 2, pipeline: 'p', runId: 'r' },
  { type: 'intent', at: 1, id: 'a', attempt: 1, idempotencyKey: 'k1', payloadHash: 'ha' },
  { type: 'created', at: 2, id: 'a', attempt: 1, jobId: 'J1', creditCost: 4 },
  { type: 'status', at: 3, id: 'a', attempt: 1, status: 'Processing', progress: 50 },
  { type: 'completed', at: 4, id: 'a', attempt: 1, resultUrls: ['https://x/a.png'], creditCost: 4 },
];

function journalOf(records: readonly object[], tail = '\n'): string {
  return records.map((record) => JSON.stringify(record)).join('\n') + tail;
}

function replayError(text: string): JournalLineError {
  try {
    replayJournal(text, 'The state journal /s/journal.jsonl');
  } catch (error) {
    if (error instanceof JournalLineError) return error;
    throw error;
  }
  throw new Error('the journal replayed without an error');
}

describe('journal records checked before they change a job (#24.4)', () => {
  it('refuses a failed record whose willRetry is a string, naming the file, the line and the field', () => {
    const forged = {
      type: 'failed',
      at: 5,
      id: 'a',
      attempt: 1,
      failureKind: 'X',
      error: 'e',
      willRetry: 'yes',
    };
    const error = replayError(journalOf([...done, forged]));
    expect(error).toMatchObject({ code: 'STATE_CORRUPT', line: 6 });
    expect(error.message).toBe(
      'The state journal /s/journal.jsonl is corrupt at line 6: a "failed" record whose "willRetry" must be boolean (received "yes"). Nothing was created.',
    );
    expect(error.hint).toContain('runner state check');
  });

  it('refuses a completed record for an attempt that was never intended', () => {
    const forged = { type: 'completed', at: 5, id: 'b', attempt: 7, resultUrls: ['https://x/b.png'] };
    expect(replayError(journalOf([...done, forged])).reason).toBe(
      'a "completed" record for attempt 7 of job b, which was never intended (no intent before it)',
    );
  });

  it('does not let a done job go back to pending, nor a failed one become done', () => {
    const retry = {
      type: 'failed',
      at: 5,
      id: 'a',
      attempt: 1,
      failureKind: 'X',
      error: 'e',
      willRetry: true,
    };
    expect(replayError(journalOf([...done, retry])).reason).toBe(
      'a "failed" record, but attempt 1 of job a is done (job J1)',
    );
    const failed = [...done.slice(0, 3), { ...retry, willRetry: false }];
    const completed = { type: 'completed', at: 6, id: 'a', attempt: 1, resultUrls: [] };
    expect(replayError(journalOf([...failed, completed])).reason).toMatch(
      /"completed" record, but attempt 1 of job a is failed/,
    );
  });

  it('refuses missing fields, wrong types, attempts going back and results of a job never created', () => {
    const cases: [object, RegExp][] = [
      [{ type: 'created', at: 5, id: 'b', attempt: 1 }, /"created" record without its "jobId" field/],
      [
        { type: 'intent', at: 5, id: 'b', attempt: 0, payloadHash: 'h' },
        /"attempt" must be >= 1 \(received 0\)/,
      ],
      [{ type: 'intent', at: 5, id: 'b', attempt: '2', payloadHash: 'h' }, /"attempt" must be integer/],
      [{ type: 'status', at: 'now', id: 'a', attempt: 1, status: 'x' }, /"at" must be number/],
      [{ type: 'intent', at: 5, id: 'a', attempt: 1, payloadHash: 'other' }, /sent with another payload/],
      [
        { type: 'downloaded', at: 5, id: 'z', url: 'u', file: 'f', bytes: 1, sha256: 's' },
        /job z, which was never created/,
      ],
      [{ type: 'completed', at: 5, id: 'a', attempt: 1, resultUrls: [1] }, /"resultUrls\.0" must be string/],
    ];
    for (const [record, reason] of cases) {
      expect(replayError(journalOf([...done, record])).reason).toMatch(reason);
    }
    const backwards = [
      ...done,
      { type: 'intent', at: 5, id: 'a', attempt: 3, payloadHash: 'ha' },
      { type: 'intent', at: 6, id: 'a', attempt: 2, payloadHash: 'ha' },
    ];
    expect(replayError(journalOf(backwards)).reason).toMatch(
      /attempt 2 of job a after attempt 3 \(attempt numbers only grow\)/,
    );
  });

  it('accepts what runners write: re-sent intents, adoption of a lost job, a lost poll followed again', () => {
    const records = [
      { type: 'intent', at: 1, id: 'v', attempt: 1, payloadHash: 'hv' },
      { type: 'uncertain', at: 2, id: 'v', attempt: 1, reason: 'no answer' },
      { type: 'intent', at: 3, id: 'v', attempt: 1, payloadHash: 'hv' },
      { type: 'uncertain', at: 4, id: 'v', attempt: 1, reason: 'no answer again' },
      { type: 'created', at: 5, id: 'v', attempt: 1, jobId: 'JV', estimatedCredits: 30 },
      { type: 'uncertain', at: 6, id: 'v', attempt: 1, reason: 'HTTP 404 while polling' },
      { type: 'status', at: 7, id: 'v', attempt: 1, status: 'Running' },
      {
        type: 'failed',
        at: 8,
        id: 'v',
        attempt: 1,
        failureKind: 'GENERATION_TIMEOUT',
        error: 't',
        willRetry: true,
      },
      { type: 'intent', at: 9, id: 'v', attempt: 2, payloadHash: 'hv' },
      {
        type: 'create-failed',
        at: 10,
        id: 'v',
        attempt: 2,
        code: 'INSUFFICIENT_CREDITS',
        message: '402',
        final: false,
      },
      { type: 'intent', at: 11, id: 'v', attempt: 3, payloadHash: 'hv' },
      { type: 'created', at: 12, id: 'v', attempt: 3, jobId: 'JV3' },
      { type: 'deferred', at: 13, id: 'v', attempt: 3, failureKind: 'QUOTA_EXHAUSTED', notBefore: 99 },
      { type: 'interrupted', at: 14 },
    ];
    const replay = replayJournal(journalOf(records));
    expect(replay.jobs.get('v')?.status).toBe('deferred');
    expect(replay.warnings).toEqual([]);
  });

  it("passes over a paused runner's late copies of records the journal holds, with a warning", () => {
    const late = [
      { type: 'created', at: 9, id: 'a', attempt: 1, jobId: 'J1', creditCost: 4 },
      { type: 'status', at: 9, id: 'a', attempt: 1, status: 'Processing' },
      { type: 'completed', at: 9, id: 'a', attempt: 1, resultUrls: ['https://x/a.png'] },
      { type: 'intent', at: 9, id: 'a', attempt: 1, idempotencyKey: 'k1', payloadHash: 'ha' },
    ];
    const replay = replayJournal(journalOf([...done, ...late]));
    expect(replay.jobs.get('a')?.status).toBe('done');
    expect(replay.warnings).toHaveLength(4);
    expect(replay.warnings[0]).toMatch(
      /Ignored line 6 of the state journal: a late copy of a "created" record/,
    );
  });

  it('passes over a late copy of a failure, a deferral or a refusal the journal already holds', () => {
    const failed = {
      type: 'failed',
      at: 5,
      id: 'a',
      attempt: 1,
      failureKind: 'X',
      error: 'e',
      willRetry: true,
    };
    const started = done.slice(0, 3);
    expect(replayJournal(journalOf([...started, failed, failed])).warnings).toHaveLength(1);
    // The same attempt failing for good after it was to be retried is no copy.
    expect(replayError(journalOf([...started, failed, { ...failed, willRetry: false }])).reason).toMatch(
      /"failed" record, but attempt 1 of job a is failed \(job J1\), to be retried/,
    );
    const deferred = {
      type: 'deferred',
      at: 5,
      id: 'a',
      attempt: 1,
      failureKind: 'QUOTA_EXHAUSTED',
      notBefore: 9,
    };
    expect(replayJournal(journalOf([...started, deferred, deferred])).warnings).toHaveLength(1);
    const refused = {
      type: 'create-failed',
      at: 2,
      id: 'a',
      attempt: 1,
      code: 'C',
      message: 'm',
      final: false,
    };
    expect(replayJournal(journalOf([...done.slice(0, 2), refused, refused])).warnings).toHaveLength(1);
  });

  it('still ignores a torn last line, but refuses a complete one without its newline that is invalid', () => {
    const torn = replayJournal(`${journalOf(done)}{"type":"failed","at":5,"id":"a","attem`);
    expect(torn.jobs.get('a')?.status).toBe('done');
    expect(torn.warnings).toEqual([expect.stringMatching(/torn last line/)]);
    const forged = { type: 'failed', at: 5, id: 'a', attempt: 1, failureKind: 'X', error: 'e', willRetry: 1 };
    expect(replayError(journalOf([...done, forged], '')).line).toBe(6);
  });
});
