import { describe, it, expect } from 'vitest';
import { createBudget } from '../../../src/execute/budget.js';
import { createJobLimiter } from '../../../src/execute/concurrency.js';

describe('createBudget', () => {
  it('reserves estimates against the cap and counts actual costs and refunds', () => {
    const budget = createBudget(10, 3);
    expect(budget.tryReserve(4)).toBe(true);
    expect(budget.tryReserve(4)).toBe(false);
    budget.settle(4, 2);
    expect(budget.spent).toBe(2);
    expect(budget.tryReserve(5)).toBe(true);
    budget.release(5);
    budget.refund(2);
    expect(budget.spent).toBe(0);
    expect(budget.spentTotal).toBe(3);
  });

  it('has no cap without a limit', () => {
    expect(createBudget(undefined, 1e9).tryReserve(1e9)).toBe(true);
  });
});

describe('createJobLimiter', () => {
  it('caps at 4, lowers to what the service reports and raises back up to the configured maximum', () => {
    const limiter = createJobLimiter(9);
    expect(limiter.limit.concurrency).toBe(4);
    expect(limiter.follow(2)).toEqual({ from: 4, to: 2 });
    expect(limiter.follow(2)).toBeUndefined();
    expect(limiter.follow(10)).toEqual({ from: 2, to: 4 });
    expect(limiter.follow(0)).toBeUndefined();
    expect(limiter.follow(undefined)).toBeUndefined();
    expect(createJobLimiter(3).follow(8)).toBeUndefined();
  });
});
