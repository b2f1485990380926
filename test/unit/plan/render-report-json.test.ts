import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { JOB_STATE_CLASSES, type CostReport, type JobStateClass } from '../../../src/plan/cost-report.js';
import { createJobTable, isJobTable } from '../../../src/plan/job-table.js';
import type { MatrixValue } from '../../../src/manifest/types.js';
import { renderReportJsonChunks } from '../../../src/plan/render-report-json.js';

function report(jobs: number): CostReport {
  return {
    schemaVersion: 1,
    pipeline: 'p',
    manifestFile: 'p.yaml',
    jobs: {
      total: jobs,
      toRun: jobs,
      byState: { new: jobs, changed: 0, failed: 0, deferred: 0, open: 0, done: 0 },
    },
    credits: {
      total: 4 * jobs,
      toRun: 4 * jobs,
      coveredBySubscription: 0,
      needed: 4 * jobs,
      alreadySpent: 0,
      allAttemptsCharged: 12 * jobs,
      maxAttempts: 3,
    },
    subscription: { status: 'unknown', imageJobsToRun: jobs, imageJobsCovered: 0 },
    balance: { status: 'known', availableCredit: 100 },
    verdict: {
      status: 'fits',
      message: 'needs 8 credits; 100 available',
      checked: { budget: false, balance: true },
    },
    models: [],
    axes: [],
    jobList: Array.from({ length: jobs }, (_, index) => ({
      id: `job-"${index}"\n`,
      model: 'm',
      kind: 'image',
      credits: 4,
      state: 'new',
      toRun: true,
      matrixValues: { n: index },
    })) as unknown as CostReport['jobList'],
    warnings: ['w'],
    notes: ['a note'],
  };
}

describe('renderReportJsonChunks', () => {
  it.each([0, 1, 2, 7])('gives exactly JSON.stringify(report, null, 2) for %d jobs', (jobs) => {
    const value = report(jobs);
    expect([...renderReportJsonChunks(value, 3)].join('')).toBe(JSON.stringify(value, null, 2));
  });

  it('yields the job list in bounded pieces', () => {
    const chunks = [...renderReportJsonChunks(report(10), 3)];
    expect(chunks).toHaveLength(1 + 4 + 1);
  });
});

describe('renderReportJsonChunks, job list written in batches', () => {
  it('gives exactly JSON.stringify for jobs in the report shape, whatever their matrix values', () => {
    const jobCost = fc.record({
      id: fc.string(),
      kind: fc.constantFrom('image', 'render-video'),
      model: fc.string(),
      credits: fc.oneof(fc.double(), fc.integer()),
      state: fc.constantFrom('new', 'changed', 'done'),
      toRun: fc.boolean(),
      coveredBySubscription: fc.boolean(),
      matrixValues: fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.constant(undefined))),
    });
    fc.assert(
      fc.property(fc.array(jobCost, { maxLength: 5 }), (jobs) => {
        const value = { ...report(0), jobList: jobs } as unknown as CostReport;
        expect([...renderReportJsonChunks(value, 2)].join('')).toBe(JSON.stringify(value, null, 2));
      }),
    );
  });

  it('gives exactly JSON.stringify whatever the jobs hold, at any batch size', () => {
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        (jobs, perChunk) => {
          const value = { ...report(0), jobList: jobs } as unknown as CostReport;
          expect([...renderReportJsonChunks(value, perChunk)].join('')).toBe(JSON.stringify(value, null, 2));
        },
      ),
    );
  });
});

describe('renderReportJsonChunks, a job table written field by field', () => {
  const matrixValue = fc.oneof(
    fc.constantFrom(Number.NaN, -0, Infinity, -Infinity, 1e21, 0.1 + 0.2, '', '"', '\u2028'),
    fc.string(),
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.jsonValue(),
    fc.constant(undefined),
  );
  const entry = fc.record({
    id: fc.string(),
    kind: fc.constantFrom('image', 'render-video'),
    model: fc.string(),
    credits: fc.oneof(fc.double({ noNaN: true }), fc.integer()),
    state: fc.constantFrom(...JOB_STATE_CLASSES),
    toRun: fc.boolean(),
    covered: fc.boolean(),
    matrixValues: fc.dictionary(fc.string(), matrixValue),
  });

  it('gives exactly JSON.stringify of the same report with its lines made into an array', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 6 }), fc.integer({ min: 1, max: 4 }), (entries, perChunk) => {
        const table = createJobTable((ref) => entries[ref]!.matrixValues as Record<string, MatrixValue>);
        entries.forEach((line, ref) => {
          table.push({ ...line, ref });
          if (line.covered) table.setCovered(ref);
        });
        expect(isJobTable(table)).toBe(true);
        const view = { ...report(0), jobList: table };
        const expected = JSON.stringify({ ...view, jobList: [...table] }, null, 2);
        expect([...renderReportJsonChunks(view, perChunk)].join('')).toBe(expected);
      }),
    );
  });

  it('gives exactly JSON.stringify when consecutive jobs share their kind, model, credits, state and flags', () => {
    // The writer makes the part from "kind" to "matrixValues" again only when a row differs from the last.
    const alike = fc.record({
      id: fc.string(),
      kind: fc.constantFrom('image', 'render-video'),
      model: fc.constantFrom('m', 'n'),
      credits: fc.constantFrom(4, 4.000000001, 0.1 + 0.2, -0),
      state: fc.constantFrom<JobStateClass>('new', 'done'),
      toRun: fc.boolean(),
      covered: fc.boolean(),
      matrixValues: fc.constant({ a: 'x' }),
    });
    fc.assert(
      fc.property(fc.array(alike, { maxLength: 12 }), fc.integer({ min: 1, max: 4 }), (entries, perChunk) => {
        const table = createJobTable((ref) => entries[ref]!.matrixValues);
        entries.forEach((line, ref) => {
          table.push({ ...line, ref });
          if (line.covered) table.setCovered(ref);
        });
        const view = { ...report(0), jobList: table };
        const expected = JSON.stringify({ ...view, jobList: [...table] }, null, 2);
        expect([...renderReportJsonChunks(view, perChunk)].join('')).toBe(expected);
      }),
    );
  });

  it('gives exactly JSON.stringify when consecutive jobs share matrix keys and values, as a matrix expands', () => {
    // The writer keeps a row's matrix values up to the last from the row before when its keys and
    // earlier values are the same: drawn from small pools here, rows share them often, or not quite.
    const shared = { k: [1, 'x'] };
    const value = fc.constantFrom<MatrixValue | undefined>(
      'x',
      'y',
      1,
      2,
      -0,
      1.5,
      true,
      null,
      shared,
      undefined,
    );
    const keyOrders = fc.constantFrom(
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
      ['b', 'a', 'c'],
      ['a', 'b'],
      ['c'],
      [],
    );
    const matrixValues = fc
      .tuple(keyOrders, fc.array(value, { minLength: 3, maxLength: 3 }))
      .map(([keys, values]) => Object.fromEntries(keys.map((key, at) => [key, values[at]])));
    const row = fc.record({
      id: fc.oneof(
        fc.constantFrom('a', 'b-1', 'q"', 'b\\s', 'é', '\ud800', '\ud83d\ude00', 'x\ty'),
        fc.string(),
      ),
      matrixValues,
    });
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), fc.integer({ min: 1, max: 4 }), (rows, perChunk) => {
        const table = createJobTable((ref) => rows[ref]!.matrixValues as Record<string, MatrixValue>);
        rows.forEach((line, ref) => {
          table.push({ id: line.id, kind: 'image', model: 'm', credits: 4, state: 'new', toRun: true, ref });
        });
        const view = { ...report(0), jobList: table };
        const expected = JSON.stringify({ ...view, jobList: [...table] }, null, 2);
        expect([...renderReportJsonChunks(view, perChunk)].join('')).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('writes the diff parts (payload hash, prompt, params) exactly as JSON.stringify, params shared or not', () => {
    const shown = fc.record({
      payloadHash: fc.stringMatching(/^[0-9a-f]{64}$/),
      prompt: fc.option(fc.string(), { nil: undefined }),
      params: fc.oneof(
        fc.constant('{}'),
        fc.constant('{"a":1}'),
        fc.dictionary(fc.string(), fc.jsonValue()).map((v) => JSON.stringify(v)),
      ),
    });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(entry, shown), { maxLength: 6 }),
        fc.integer({ min: 1, max: 4 }),
        (entries, perChunk) => {
          const table = createJobTable((ref) => entries[ref]![0].matrixValues as Record<string, MatrixValue>);
          entries.forEach(([line, diff], ref) => {
            table.push({
              ...line,
              ref,
              shown: { payloadHash: diff.payloadHash, prompt: diff.prompt, paramsJson: diff.params },
            });
          });
          const view = { ...report(0), jobList: table };
          const expected = JSON.stringify({ ...view, jobList: [...table] }, null, 2);
          expect([...renderReportJsonChunks(view, perChunk)].join('')).toBe(expected);
          for (const [index, job] of [...table].entries()) {
            expect(job.payloadHash).toBe(entries[index]![1].payloadHash);
            expect(table.paramSets()[job.paramsRef!]).toEqual(JSON.parse(entries[index]![1].params));
          }
        },
      ),
    );
  });
});
