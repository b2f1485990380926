import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MAX_DECISIONS_BYTES,
  readDecisionsFile,
  readDecisionsText,
} from '../../../src/review/read-decisions.js';

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

/** Issue #32.7: a 100 MB decisions file took 15–30 s and 3.6 GB before it was refused. */
describe('readDecisionsFile: a file too large to be decisions', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('refuses a 100 MB file by its size, before reading it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-decisions-'));
    const file = join(dir, 'huge.json');
    await writeFile(file, JSON.stringify(GOOD));
    // Sparse: 100 MB long for stat, no disk used; reading it would parse 100 MB of zero bytes.
    await truncate(file, 100 * 1024 * 1024);
    const result = await readDecisionsFile(file);
    expect(result).toEqual({
      ok: false,
      issues: [
        expect.objectContaining({
          code: 'decisions-too-large',
          message: `--replace-from ${file} is 100 MiB; a decisions file may be at most 16 MiB`,
          location: { file, line: 1, col: 1 },
        }),
      ],
    });
    expect(MAX_DECISIONS_BYTES).toBe(16 * 1024 * 1024);
  });

  it('reads a file of the cap exactly, and refuses one byte more', async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-decisions-'));
    const file = join(dir, 'decisions.json');
    const text = JSON.stringify(GOOD);
    await writeFile(file, text);
    expect((await readDecisionsFile(file, text.length)).ok).toBe(true);
    const over = await readDecisionsFile(file, text.length - 1);
    expect(over.ok).toBe(false);
    if (!over.ok) expect(over.issues[0]?.code).toBe('decisions-too-large');
  });
});
