import { describe, expect, it } from 'vitest';
import { readDecisionsText } from '../../../src/review/read-decisions.js';

const GOOD = {
  kind: 'runner-review-decisions',
  schemaVersion: 1,
  pipeline: 'nightly',
  runId: 'night-1',
  decisions: [{ jobId: 'hero-latte', decision: 'rejected', note: 'blurry', attempt: 1, payloadHash: 'abc' }],
};

const read = (value: unknown) => readDecisionsText(JSON.stringify(value, null, 2), 'decisions.json');

describe('readDecisionsText', () => {
  it('reads a decisions file, fields a newer runner adds included', () => {
    const result = read({ ...GOOD, reviewer: 'ana' });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.decisions.decisions[0]?.note).toBe('blurry');
  });

  it('says a JSON document of another kind is not a decisions file, at its kind', () => {
    const result = read({ kind: 'runner-plan', schemaVersion: 2 });
    expect(result).toEqual({
      ok: false,
      issues: [
        expect.objectContaining({
          code: 'not-a-decisions-file',
          message: expect.stringContaining('found "runner-plan"') as unknown,
          location: { file: 'decisions.json', line: 2, col: 11 },
        }),
      ],
    });
    expect(read([1, 2])).toMatchObject({ ok: false, issues: [{ code: 'not-a-decisions-file' }] });
  });

  it('refuses another version with one issue saying which it reads', () => {
    const result = read({ ...GOOD, schemaVersion: 2 });
    expect(result).toMatchObject({
      ok: false,
      issues: [
        {
          code: 'decisions-version',
          location: { line: 3 },
          hint: expect.stringContaining('newer') as unknown,
        },
      ],
    });
  });

  it('gives every schema problem at once, each at its line', () => {
    const result = read({
      ...GOOD,
      decisions: [
        { jobId: 'a', decision: 'maybe', attempt: 1, payloadHash: 'x' },
        { jobId: 'b', decision: 'approved', attempt: 0, payloadHash: 'x', file: 1.5 },
        { decision: 'approved', attempt: 1, payloadHash: 'x' },
      ],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => [issue.message, issue.location?.line])).toEqual([
      ['decisions[0].decision must be one of approved, rejected; received "maybe"', 9],
      ['decisions[1].file must be integer; received 1.5', 18],
      ['decisions[1].attempt must be >= 1; received 0', 16],
      ['decisions[2] is missing the required key "jobId"', 20],
    ]);
  });

  it('reports text that is not JSON with its position', () => {
    const result = readDecisionsText('{ "kind": ', 'd.json');
    expect(result).toMatchObject({
      ok: false,
      issues: [{ severity: 'error', location: { file: 'd.json' } }],
    });
    if (!result.ok) expect(result.issues[0]?.message).toMatch(/^not JSON: /);
  });
});
