import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashCheckedJob, type CheckedJob } from '../../../src/catalog/validate-job.js';
import type { ExpandedJob } from '../../../src/manifest/types.js';
import { JOB_STATE_CLASSES } from '../../../src/plan/cost-report.js';
import { createJobTable, type ShownPayload } from '../../../src/plan/job-table.js';
import { shownParamsJson } from '../../../src/plan/payload-diff.js';
import { renderReportJsonChunks } from '../../../src/plan/render-report-json.js';
import { EMPTY_REPORT } from './empty-report.js';
import { createShownPayloads } from '../../../src/plan/shown-payloads.js';

interface Job {
  expanded: ExpandedJob;
  checked: CheckedJob;
  /** Pushed with its hash made by the table (as `plan` does), or made before (as the whole-plan path). */
  deferred: boolean;
  /** Pushed with no diff parts at all. */
  bare: boolean;
}

const job: fc.Arbitrary<Job> = fc
  .record({
    specIndex: fc.integer({ min: 0, max: 2 }),
    model: fc.constantFrom('m1', 'm2'),
    prompt: fc.option(fc.constantFrom('a cup', 'a "mug"', 'é\n\u2028'), { nil: undefined }),
    written: fc.constantFrom<Record<string, unknown>>({}, { aspectRatio: '1:1' }, { n: 2 }),
    deferred: fc.boolean(),
    bare: fc.boolean(),
  })
  .map(({ specIndex, model, prompt, written, deferred, bare }) => ({
    expanded: {
      id: 'x',
      kind: 'image',
      model,
      ...(prompt === undefined ? {} : { prompt }),
      params: {},
      matrixValues: {},
      specIndex,
    } as unknown as ExpandedJob,
    checked: { written, params: { format: 'png', ...written }, credits: 1 },
    deferred,
    bare,
  }));

/** The report of `jobs` with each job's diff parts made as `shownOf` says, read back with or without a replay. */
function reportOf(jobs: readonly Job[], shownOf: (job: Job) => ShownPayload | undefined, replay: boolean) {
  const table = createJobTable(
    () => ({}),
    replay
      ? jobs.map(({ expanded: { prompt } }, ref) =>
          prompt === undefined ? { id: `j${ref}` } : { id: `j${ref}`, prompt },
        )
      : undefined,
  );
  jobs.forEach((one, ref) => {
    const shown = shownOf(one);
    table.push({
      id: `j${ref}`,
      kind: 'image',
      model: one.expanded.model,
      credits: 1,
      state: JOB_STATE_CLASSES[ref % JOB_STATE_CLASSES.length]!,
      toRun: true,
      ref,
      ...(shown === undefined ? {} : { shown }),
    });
  });
  return {
    json: [...renderReportJsonChunks({ ...EMPTY_REPORT, jobList: table }, 3)].join(''),
    lines: [...table],
  };
}

describe('a job table given payloads whose hash it makes when a row is read', () => {
  it('writes what a table given each hash made before writes, with or without a replay', () => {
    fc.assert(
      fc.property(fc.array(job, { maxLength: 12 }), fc.boolean(), (jobs, replay) => {
        const shown = createShownPayloads();
        const deferredOrNot = (one: Job): ShownPayload | undefined => {
          if (one.bare) return undefined;
          const made = shown(one.expanded, one.checked);
          return one.deferred
            ? made
            : { payloadHash: made.payloadHash, prompt: made.prompt, paramsJson: made.paramsJson };
        };
        const madeBefore = (one: Job): ShownPayload | undefined =>
          one.bare
            ? undefined
            : {
                payloadHash: hashCheckedJob(one.expanded, one.checked),
                prompt: one.expanded.prompt,
                paramsJson: shownParamsJson(one.checked.params),
              };
        const got = reportOf(jobs, deferredOrNot, replay);
        const expected = reportOf(jobs, madeBefore, replay);
        expect(got.json).toBe(expected.json);
        expect(got.lines).toEqual(expected.lines);
        expect(JSON.parse(got.json)).toEqual({ ...EMPTY_REPORT, jobList: expected.lines });
      }),
    );
  });
});
