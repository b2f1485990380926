import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { replayJournal } from '../../../src/state/replay.js';
import { isJsonObject } from '../../../src/state/backends/folder/journal.js';
import type { JournalRecord } from '../../../src/state/records.js';
import { isRunnerError } from '../../../src/errors.js';

const records: JournalRecord[] = [
  { type: 'run', at: 1, runId: 'r1', pipeline: 'p', pid: 42, manifestFile: 'm.yaml' },
  { type: 'intent', at: 2, id: 'a', attempt: 1, idempotencyKey: 'rn-a1', payloadHash: 'ha' },
  { type: 'created', at: 3, id: 'a', attempt: 1, jobId: 'J1', creditCost: 5, chargeSource: 'Credit' },
  { type: 'intent', at: 4, id: 'b', attempt: 1, payloadHash: 'hb' },
  { type: 'status', at: 5, id: 'a', attempt: 1, status: 'Processing', progress: 40 },
  {
    type: 'completed',
    at: 6,
    id: 'a',
    attempt: 1,
    resultUrls: ['https://x/a.png'],
    creditCost: 5,
    chargeSource: 'Credit',
  },
  { type: 'downloaded', at: 7, id: 'a', url: 'https://x/a.png', file: '/out/a.png', bytes: 10, sha256: 'ff' },
  { type: 'intent', at: 8, id: 'c', attempt: 1, idempotencyKey: 'rn-c1', payloadHash: 'hc' },
  { type: 'created', at: 9, id: 'c', attempt: 1, jobId: 'J3', creditCost: 0, chargeSource: 'Subscription' },
  {
    type: 'failed',
    at: 10,
    id: 'c',
    attempt: 1,
    failureKind: 'GENERATION_TIMEOUT',
    error: 'timeout',
    willRetry: true,
  },
  { type: 'intent', at: 11, id: 'c', attempt: 2, idempotencyKey: 'rn-c2', payloadHash: 'hc' },
  { type: 'created', at: 12, id: 'c', attempt: 2, jobId: 'J4' },
  { type: 'intent', at: 13, id: 'd', attempt: 1, idempotencyKey: 'rn-d1', payloadHash: 'hd' },
  { type: 'created', at: 14, id: 'd', attempt: 1, jobId: 'J5', creditCost: 3 },
  {
    type: 'failed',
    at: 15,
    id: 'd',
    attempt: 1,
    failureKind: 'PROMPT_UNCLEAR',
    error: 'vague',
    willRetry: false,
  },
  { type: 'intent', at: 16, id: 'e', attempt: 1, payloadHash: 'he' },
  { type: 'created', at: 17, id: 'e', attempt: 1, jobId: 'J6' },
  { type: 'deferred', at: 18, id: 'e', attempt: 1, failureKind: 'QUOTA_EXHAUSTED', notBefore: 1000 },
  { type: 'intent', at: 19, id: 'f', attempt: 1, payloadHash: 'hf' },
  { type: 'uncertain', at: 20, id: 'f', attempt: 1, reason: 'lost' },
  { type: 'intent', at: 21, id: 'g', attempt: 1, idempotencyKey: 'rn-g1', payloadHash: 'hg' },
  {
    type: 'create-failed',
    at: 22,
    id: 'g',
    attempt: 1,
    code: 'SERVICE_VALIDATION',
    message: 'bad',
    final: true,
  },
  { type: 'intent', at: 23, id: 'h', attempt: 1, idempotencyKey: 'rn-h1', payloadHash: 'hh' },
  {
    type: 'create-failed',
    at: 24,
    id: 'h',
    attempt: 1,
    code: 'INSUFFICIENT_CREDITS',
    message: '402',
    final: false,
  },
  { type: 'interrupted', at: 25 },
];
const sample = records.map((record) => `${JSON.stringify(record)}\n`).join('');

describe('replayJournal', () => {
  it('derives every status from the last attempt', () => {
    const { jobs, warnings, runs } = replayJournal(sample);
    expect(warnings).toEqual([]);
    expect(runs).toHaveLength(1);
    const statuses = Object.fromEntries([...jobs].map(([id, job]) => [id, job.status]));
    expect(statuses).toEqual({
      a: 'done',
      b: 'creating',
      c: 'open',
      d: 'failed',
      e: 'deferred',
      f: 'uncertain',
      g: 'failed',
      h: 'pending',
    });
  });

  it('keeps attempts, keys, costs, results and downloads', () => {
    const { jobs } = replayJournal(sample);
    const a = jobs.get('a');
    expect(a?.attempts[0]).toMatchObject({
      attempt: 1,
      idempotencyKey: 'rn-a1',
      jobId: 'J1',
      status: 'Processing',
      progress: 40,
      resultUrls: ['https://x/a.png'],
      creditCost: 5,
      chargeSource: 'Credit',
      intentAt: 2,
      createdAt: 3,
    });
    expect(a?.downloads).toEqual([
      { url: 'https://x/a.png', file: '/out/a.png', bytes: 10, sha256: 'ff', at: 7 },
    ]);
    const c = jobs.get('c');
    expect(c?.attempts.map((attempt) => [attempt.attempt, attempt.outcome, attempt.idempotencyKey])).toEqual([
      [1, 'retry', 'rn-c1'],
      [2, 'open', 'rn-c2'],
    ]);
    expect(jobs.get('e')?.attempts[0]?.notBefore).toBe(1000);
  });

  it('keeps the first intent time when an attempt is re-sent', () => {
    const text = [
      { type: 'intent', at: 100, id: 'a', attempt: 1, idempotencyKey: 'k', payloadHash: 'h' },
      { type: 'intent', at: 200, id: 'a', attempt: 1, idempotencyKey: 'k', payloadHash: 'h' },
    ]
      .map((record) => JSON.stringify(record))
      .join('\n');
    const job = replayJournal(text).jobs.get('a');
    expect(job?.attempts).toHaveLength(1);
    expect(job?.attempts[0]?.intentAt).toBe(100);
    expect(job?.status).toBe('creating');
  });

  it('ignores a torn last line with a warning', () => {
    const torn = `${sample}{"type":"created","at":30,"id":"b","att`;
    const { jobs, warnings } = replayJournal(torn);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/torn last line/);
    expect(jobs.get('b')?.status).toBe('creating');
  });

  it('reports a corrupt middle line as STATE_CORRUPT with its line number', () => {
    const lines = sample.split('\n');
    lines[3] = '{"type":"created", garbage';
    let caught: unknown;
    try {
      replayJournal(lines.join('\n'));
    } catch (error) {
      caught = error;
    }
    expect(isRunnerError(caught) && caught.code).toBe('STATE_CORRUPT');
    expect((caught as Error).message).toMatch(/line 4/);
  });

  it('never throws when the journal is cut at any byte offset', () => {
    const bytes = Buffer.from(sample, 'utf8');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bytes.length }), (offset) => {
        const text = bytes.subarray(0, offset).toString('utf8');
        const result = replayJournal(text);
        const lastLine = text.slice(text.lastIndexOf('\n') + 1);
        // A cut just before a newline leaves a whole record: it counts, with no warning.
        const complete = lastLine === '' || isJsonObject(lastLine);
        expect(result.warnings.length).toBe(complete ? 0 : 1);
      }),
      { numRuns: 500 },
    );
  });

  it('replays every possible cut to a prefix of the full states', () => {
    const bytes = Buffer.from(sample, 'utf8');
    for (let offset = 0; offset <= bytes.length; offset++) {
      const { jobs } = replayJournal(bytes.subarray(0, offset).toString('utf8'));
      for (const job of jobs.values())
        expect(['pending', 'creating', 'open', 'done', 'failed', 'deferred', 'uncertain']).toContain(
          job.status,
        );
    }
  });

  it('treats a non-object line in the middle as corrupt', () => {
    expect(() => replayJournal('42\n{"type":"interrupted","at":1}\n')).toThrow(/line 1/);
  });
});
