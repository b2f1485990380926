import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CheckedJob } from '../../../src/catalog/validate-job.js';
import { hashCheckedJob } from '../../../src/catalog/validate-job.js';
import type { ExpandedJob } from '../../../src/manifest/types.js';
import { shownParamsJson } from '../../../src/plan/payload-diff.js';
import { createShownPayloads } from '../../../src/plan/shown-payloads.js';

const file = (sha256: string, localFile = './logo.png') => ({
  localFile,
  path: `/abs/${localFile}`,
  sha256,
  contentType: 'image/png',
  bytes: 10,
});

/**
 * The plan JSON's diff parts are made with remembered texts (by entry and value, then by the params'
 * text); whatever the order of jobs, each must be what the uncached functions give.
 */
describe('createShownPayloads', () => {
  it('gives hashCheckedJob and shownParamsJson for every job, whatever it remembered', () => {
    const written = fc.constantFrom<Record<string, unknown>>(
      {},
      { aspectRatio: '1:1' },
      { aspectRatio: '16:9' },
      { referenceImages: [file('a'.repeat(64))] },
      { referenceImages: [file('b'.repeat(64))] },
      { referenceImages: [file('a'.repeat(64), './other.png')] },
      { n: Number.NaN },
    );
    const job = fc.record({
      specIndex: fc.integer({ min: 0, max: 2 }),
      model: fc.constantFrom('m1', 'm2'),
      prompt: fc.option(fc.constantFrom('a cup', 'a mug'), { nil: undefined }),
      written,
    });
    fc.assert(
      fc.property(fc.array(job, { maxLength: 30 }), (jobs) => {
        const shown = createShownPayloads();
        for (const one of jobs) {
          const expanded = {
            id: 'x',
            kind: 'image',
            model: one.model,
            ...(one.prompt === undefined ? {} : { prompt: one.prompt }),
            params: {},
            matrixValues: {},
            specIndex: one.specIndex,
          } as unknown as ExpandedJob;
          // The params sent: as written, a model's default folded in.
          const checked: CheckedJob = {
            written: { ...one.written },
            params: { format: one.model === 'm1' ? 'png' : 'jpeg', ...one.written },
            credits: 1,
          };
          const result = shown(expanded, checked);
          expect(result.payloadHash).toBe(hashCheckedJob(expanded, checked));
          expect(result.paramsJson).toBe(shownParamsJson(checked.params));
          expect(result.prompt).toBe(one.prompt);
        }
      }),
    );
  });
});
