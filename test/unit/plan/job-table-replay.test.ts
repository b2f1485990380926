import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RunnerError } from '../../../src/errors.js';
import { JOB_STATE_CLASSES } from '../../../src/plan/cost-report.js';
import { createHashColumn } from '../../../src/plan/hash-column.js';
import { createJobTable, type JobTableEntry } from '../../../src/plan/job-table.js';
import { renderReportJsonChunks } from '../../../src/plan/render-report-json.js';
import { EMPTY_REPORT } from './empty-report.js';

interface Job {
  id: string;
  prompt?: string | undefined;
  /** Whether the plan kept it (`--only`/`--exclude` leave jobs out of the table, not of the expansion). */
  kept: boolean;
  hash: string;
}

function row(job: Job, ref: number): JobTableEntry {
  return {
    id: job.id,
    kind: 'image',
    model: 'm',
    credits: 4,
    state: JOB_STATE_CLASSES[ref % JOB_STATE_CLASSES.length]!,
    toRun: ref % 2 === 0,
    ref,
    shown: { payloadHash: job.hash, prompt: job.prompt, paramsJson: `{"n":${ref % 3}}` },
  };
}

function tableOf(jobs: readonly Job[], replay?: Iterable<{ id: string; prompt?: string }>) {
  const table = createJobTable((ref) => ({ n: ref }), replay);
  jobs.forEach((job, ref) => {
    if (job.kept) table.push(row(job, ref));
  });
  return table;
}

const json = (table: ReturnType<typeof tableOf>) =>
  [...renderReportJsonChunks({ ...EMPTY_REPORT, jobList: table }, 2)].join('');

describe('a job table that reads its prompts back from the jobs expanded again', () => {
  const job = fc.record({
    id: fc.string({ minLength: 1 }),
    prompt: fc.option(fc.string(), { nil: undefined }),
    kept: fc.boolean(),
    hash: fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), fc.string()),
  });

  it('writes the same report as a table that keeps them, read as often as asked', () => {
    fc.assert(
      fc.property(fc.array(job, { maxLength: 8 }), (jobs) => {
        const replay = jobs.map(({ id, prompt }) => (prompt === undefined ? { id } : { id, prompt }));
        const replayed = tableOf(jobs, replay);
        const kept = tableOf(jobs);
        expect(json(replayed)).toBe(json(kept));
        expect([...replayed]).toEqual([...kept]);
      }),
    );
  });

  it('takes each prompt from the replay, not from the rows pushed', () => {
    const jobs: Job[] = [
      { id: 'a', prompt: 'first', kept: true, hash: 'a'.repeat(64) },
      { id: 'b', prompt: 'left out', kept: false, hash: 'b'.repeat(64) },
      { id: 'c', prompt: 'third', kept: true, hash: 'c'.repeat(64) },
    ];
    const table = tableOf(jobs, [{ id: 'a', prompt: 'A' }, { id: 'b' }, { id: 'c', prompt: 'C' }]);
    expect([...table].map((line) => line.prompt)).toEqual(['A', 'C']);
  });

  it('refuses, as an internal error, a replay that does not give the jobs the table holds', () => {
    const jobs: Job[] = [
      { id: 'a', prompt: 'p', kept: true, hash: 'a'.repeat(64) },
      { id: 'b', prompt: 'p', kept: true, hash: 'b'.repeat(64) },
    ];
    const read = (replay: { id: string }[]) => () => [...tableOf(jobs, replay)];
    expect(read([{ id: 'a' }, { id: 'x' }])).toThrow(/job "b" was expected, the second expansion gave "x"/);
    expect(read([{ id: 'a' }])).toThrow(/job "b" was expected, the second expansion ended before it/);
    expect(read([{ id: 'a' }])).toThrow(RunnerError);
    // Rows out of expansion order cannot be matched with a replay: refused when pushed.
    const table = createJobTable(() => ({}), []);
    table.push(row(jobs[1]!, 1));
    expect(() => table.push(row(jobs[0]!, 0))).toThrow(/came out of plan order/);
  });

  it('needs no replay when no row has diff parts', () => {
    const table = createJobTable(() => ({}), {
      [Symbol.iterator]: () => {
        throw new Error('replayed');
      },
    });
    table.push({ id: 'a', kind: 'image', model: 'm', credits: 1, state: 'new', toRun: true, ref: 0 });
    expect([...table].map((line) => line.id)).toEqual(['a']);
  });
});

describe('renderReportJsonChunks of a job table, in pieces a young collection can free', () => {
  it('hands each piece on before it is 16,384 characters and one job long, whatever the batch size', () => {
    // 1,000 jobs of ~550 characters each made one 550 KB piece (a large object, left to a full collection).
    const prompt = 'A watercolor advertisement of a product from a brand in a style, '.repeat(6);
    const jobs = Array.from({ length: 1000 }, (_, index) => ({
      id: `job-${index}`,
      prompt,
      kept: true,
      hash: index.toString(16).padStart(64, '0'),
    }));
    const table = tableOf(jobs);
    const chunks = [...renderReportJsonChunks({ ...EMPTY_REPORT, jobList: table }, 1000)];
    const lineLength = JSON.stringify([...table][0], null, 2).length + 32;
    expect(chunks.length).toBeGreaterThan(20);
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(16_384 + lineLength);
    expect(JSON.parse(chunks.join(''))).toEqual({ ...EMPTY_REPORT, jobList: [...table] });
  });
});

describe('createHashColumn', () => {
  it('gives back what was pushed: hashes kept as bytes, anything else as written', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.stringMatching(/^[0-9a-f]{64}$/),
            fc.stringMatching(/^[0-9A-F]{64}$/),
            // Decodes as hex, yet must come back with its capitals (and one non-hex digit: not at all).
            fc.stringMatching(/^[0-9a-fA-F]{64}$/),
            fc.stringMatching(/^[0-9a-f]{63}[g-z]$/),
            fc.string(),
            fc.constant(undefined),
          ),
          { maxLength: 3000 },
        ),
        (hashes) => {
          const column = createHashColumn();
          for (const hash of hashes) column.push(hash);
          expect(column.length).toBe(hashes.length);
          expect(hashes.map((_, index) => column.at(index))).toEqual(hashes);
          expect(column.at(hashes.length)).toBeUndefined();
        },
      ),
      { numRuns: 30 },
    );
  });
});
