import { describe, expect, it } from 'vitest';
import { countReportedCost } from '../../../src/execute/counted-cost.js';

/** Issue #32.1: a cost reported below the catalog's price while the job is charged to credits. */
describe('countReportedCost', () => {
  it('raises a charge to credits reported below the estimate to the estimate, saying from what', () => {
    expect(countReportedCost({ jobId: 'j', creditCost: 0, chargeSource: 'Credit' }, 4)).toEqual({
      answer: { jobId: 'j', creditCost: 4, chargeSource: 'Credit' },
      raisedFrom: 0,
    });
    expect(countReportedCost({ jobId: 'j', creditCost: 0.0001, chargeSource: 'Credit' }, 4)).toEqual({
      answer: { jobId: 'j', creditCost: 4, chargeSource: 'Credit' },
      raisedFrom: 0.0001,
    });
  });

  it('keeps a charge at or above the estimate, a covered job and an answer without a source as reported', () => {
    const kept = [
      { jobId: 'j', creditCost: 4, chargeSource: 'Credit' as const },
      { jobId: 'j', creditCost: 9, chargeSource: 'Credit' as const },
      { jobId: 'j', creditCost: 0, chargeSource: 'Subscription' as const },
      { jobId: 'j', creditCost: 0 },
      { jobId: 'j', chargeSource: 'Credit' as const },
    ];
    for (const answer of kept) expect(countReportedCost(answer, 4)).toEqual({ answer });
  });
});
