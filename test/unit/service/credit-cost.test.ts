import { describe, expect, it } from 'vitest';
import { checkCatalogCreditCost, describeCredits, readCredits } from '../../../src/service/credit-cost.js';
import { buildJobRecord } from '../../../src/service/job-status.js';

describe('readCredits (#24.2)', () => {
  it('reads finite numbers of 0 or more, given as numbers or numeric text', () => {
    expect([0, 8, 1.5, '12', ' 2.5 ', '1e2'].map(readCredits)).toEqual([0, 8, 1.5, 12, 2.5, 100]);
  });

  it('refuses negative, non-finite and non-numeric figures', () => {
    const bad = [-30, -0.5, '-1000', Infinity, NaN, null, undefined, 'free', '12 credits', '', true, {}, []];
    expect(bad.map(readCredits)).toEqual(bad.map(() => undefined));
  });

  it('refuses a figure above a billion credits (#32.1: a reported 1e308 summed to Infinity)', () => {
    expect([1e9, '1000000000'].map(readCredits)).toEqual([1e9, 1e9]);
    expect([1e9 + 1, 1e308, '1e308', Number.MAX_VALUE].map(readCredits)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(checkCatalogCreditCost({ slug: 'veo', creditCost: 1e308 })).toMatch(
      /^model "veo" has creditCost 1e\+308 in the catalog; expected a finite number of credits, 0 or more and at most 1,000,000,000/,
    );
  });

  it('describes a received figure as it read, short', () => {
    expect([-30, 'free', null, Infinity, undefined].map(describeCredits)).toEqual([
      '-30',
      '"free"',
      'null',
      'Infinity',
      'nothing',
    ]);
    expect(describeCredits('x'.repeat(100))).toHaveLength(60);
  });

  it('names the model and the value of an impossible catalog price', () => {
    expect(checkCatalogCreditCost({ slug: 'veo', creditCost: 8 })).toBeUndefined();
    expect(checkCatalogCreditCost({ slug: 'veo', creditCost: -30 })).toMatch(
      /^model "veo" has creditCost -30 in the catalog; expected a finite number of credits, 0 or more/,
    );
  });
});

describe('a polled job reporting an impossible cost (#24.2)', () => {
  it('keeps it out of creditCost, as it read', () => {
    const record = buildJobRecord({
      jobId: 'j',
      status: 'complete',
      resultUrl: 'https://r/x',
      creditCost: -1000,
    });
    expect(record.creditCost).toBeUndefined();
    expect(record.unusableCreditCost).toBe('-1000');
    expect(buildJobRecord({ jobId: 'j', status: 'complete', creditCost: '12' }).creditCost).toBe(12);
    expect(buildJobRecord({ jobId: 'j', status: 'complete', creditCost: null })).not.toHaveProperty(
      'unusableCreditCost',
    );
  });
});
