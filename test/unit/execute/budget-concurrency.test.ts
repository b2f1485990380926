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

  it('estimates a model at no less than the service charged for one of its jobs above the estimate (#24.2)', () => {
    const budget = createBudget(50, 0);
    expect(budget.estimateFor('m', 0)).toBe(0);
    expect(budget.tryReserve(0)).toBe(true);
    budget.settle(0, 8, 'm');
    expect(budget.estimateFor('m', 0)).toBe(8);
    expect(budget.estimateFor('m', 12)).toBe(12);
    expect(budget.estimateFor('other', 0)).toBe(0);
    // A covered job (no model passed) says nothing of the price.
    budget.settle(0, 30, undefined);
    expect(budget.estimateFor('m', 0)).toBe(8);
  });

  it('under a cap, sends the first create of a model alone until an answer shows its price', async () => {
    const budget = createBudget(50, 0);
    const order: string[] = [];
    const first = await budget.admit('m');
    const second = budget.admit('m').then((done) => {
      order.push('second');
      return done;
    });
    const other = budget.admit('n').then((done) => {
      order.push('other');
      return done;
    });
    await Promise.resolve();
    expect(order).toEqual([]);
    budget.settle(0, 8, 'm');
    first();
    (await second)();
    await Promise.resolve();
    // Model n is still unpriced: it went alone after m's answer, and m's next creates need not wait.
    expect(order[0]).toBe('second');
    (await other)();
    expect(order).toEqual(['second', 'other']);
    const free = createBudget(undefined, 0);
    await Promise.all([free.admit('x'), free.admit('x')]);
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
