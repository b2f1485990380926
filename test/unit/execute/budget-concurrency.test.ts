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

  it('estimates a model at no less than the service charged for one of its jobs above the estimate (#24.2)', async () => {
    const budget = createBudget(50, 0);
    expect(budget.estimateFor('m', 0)).toBe(0);
    expect(budget.tryReserve(0)).toBe(true);
    budget.settle(0, 8);
    await budget.learnPrice('m', 0, 8);
    expect(budget.estimateFor('m', 0)).toBe(8);
    expect(budget.estimateFor('m', 12)).toBe(12);
    expect(budget.estimateFor('other', 0)).toBe(0);
  });

  it('under a cap, sends the first create of a model alone until a price is seen, not when its create is answered (#31.4)', async () => {
    const budget = createBudget(50, 0);
    const order: string[] = [];
    await budget.admit('m', 'a');
    const second = budget.admit('m', 'b').then(() => order.push('second'));
    const other = budget.admit('n', 'c').then(() => order.push('other'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    // Another model's first create is not held up by m's.
    expect(order).toEqual(['other']);
    // Job a's create was answered with only its job id: m's price is still unknown, b still waits.
    budget.settle(0, 0);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).toEqual(['other']);
    // a's poll shows the charge: b goes, and so does every later create of m, at once.
    await budget.learnPrice('m', 0, 8);
    await second;
    await budget.admit('m', 'd');
    expect(order).toEqual(['other', 'second']);
    await other;
    // Model n's first job ended without a price: the next job of n is the new first.
    await budget.endProbe('c');
    await budget.admit('n', 'e');
    const third = budget.admit('n', 'f').then(() => order.push('third'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(order).toEqual(['other', 'second']);
    await budget.endProbe('e');
    await third;
    const free = createBudget(undefined, 0);
    await Promise.all([free.admit('x', 'a'), free.admit('x', 'b')]);
  });

  it('recounts a job at what its poll reports', () => {
    const budget = createBudget(undefined, 5);
    budget.recount(0, 30);
    expect(budget.spent).toBe(30);
    expect(budget.spentTotal).toBe(35);
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
