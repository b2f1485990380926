import { describe, expect, it } from 'vitest';
import { createBudget } from '../../../src/execute/budget.js';

describe('createBudget', () => {
  it('counts what other machines on the run spent against the cap, as their latest total (#17.4)', () => {
    const budget = createBudget(20, 4);
    expect(budget.tryReserve(8)).toBe(true);
    budget.settle(8, 8);
    budget.countOthers(4);
    expect(budget.spentTotal).toBe(16);
    expect(budget.tryReserve(8)).toBe(false);
    expect(budget.tryReserve(4)).toBe(true);
    budget.release(4);
    // A newer total replaces the older one; it is not added to it.
    budget.countOthers(8);
    expect(budget.spentTotal).toBe(20);
    expect(budget.tryReserve(1)).toBe(false);
    expect(budget.spent).toBe(8);
  });
});
