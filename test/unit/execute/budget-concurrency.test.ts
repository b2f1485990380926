import { describe, it, expect } from 'vitest';
import { createBudget } from '../../../src/execute/budget.js';
import { createJobLimiter } from '../../../src/execute/concurrency.js';
import { chooseExitReason } from '../../../src/execute/executor.js';

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

describe('chooseExitReason', () => {
  const counts = (done: number, total: number, downloadFailures = 0) =>
    ({ total, done, downloadFailures }) as unknown as Parameters<typeof chooseExitReason>[1];

  it('is ok when every job is done, even when creating was stopped (Ctrl-C after the last create)', () => {
    expect(chooseExitReason('interrupted', counts(3, 3))).toBe('ok');
    expect(chooseExitReason(undefined, counts(3, 3))).toBe('ok');
  });

  it('names why it stopped when jobs are missing, and says failed otherwise', () => {
    expect(chooseExitReason('interrupted', counts(2, 3))).toBe('interrupted');
    expect(chooseExitReason('credits', counts(2, 3))).toBe('credits');
    expect(chooseExitReason('service', counts(2, 3))).toBe('failed');
    expect(chooseExitReason(undefined, counts(3, 3, 1))).toBe('failed');
  });
});
