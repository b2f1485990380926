import { describe, expect, it } from 'vitest';
import { describeBalanceDrop, watchBalance } from '../../../src/app/balance-watch.js';
import type { Balance } from '../../../src/service/types.js';

/** Issue #32.1: the balance is the service's own figure of what it charged. */
describe('the balance held against what the run counted', () => {
  it('warns with both figures when the balance fell by more than was counted', () => {
    expect(describeBalanceDrop({ before: 1200, after: 1184, counted: 8 })).toMatch(
      /^The available credit fell by 16 credits during this apply \(from 1,200 to 1,184\), more than the 8 credits it counted/,
    );
  });

  it('is silent when the balance fell by what was counted, by less, or by a rounding', () => {
    expect(describeBalanceDrop({ before: 1200, after: 1192, counted: 8 })).toBeUndefined();
    expect(describeBalanceDrop({ before: 1200, after: 1200, counted: 8 })).toBeUndefined();
    expect(describeBalanceDrop({ before: 0.3, after: 0, counted: 0.1 + 0.2 })).toBeUndefined();
  });

  it('counts only what the run spent since the watch started, and stays silent when a balance cannot be read', async () => {
    const balances = [100, 80];
    const client = {
      getBalance: (): Promise<Balance> => {
        const next = balances.shift();
        return next === undefined
          ? Promise.reject(new Error('offline'))
          : Promise.resolve({ availableCredit: next });
      },
    };
    const earlier = new Map([
      ['a', { id: 'a', status: 'done', attempts: [{ attempt: 1, jobId: 'j1', creditCost: 30 }] }],
    ]) as unknown as Parameters<typeof watchBalance>[1];
    const watch = await watchBalance(client, earlier);
    // The run's total is 30 (before) + 12 (this apply); the balance fell by 20.
    expect(await watch.check(42)).toMatch(/fell by 20 credits .*more than the 12 credits it counted/);
    const silent = await watchBalance(client, new Map());
    expect(await silent.check(0)).toBeUndefined();
  });

  it("counts what the run's other machines spent, and stays silent when that cannot be read", async () => {
    const client = () => {
      const balances = [100, 60];
      return {
        getBalance: (): Promise<Balance> => Promise.resolve({ availableCredit: balances.shift() ?? 0 }),
      };
    };
    // This machine counted 12 of the 40 the balance fell by; the other machines of the run 28.
    const shared = await watchBalance(client(), new Map(), () => Promise.resolve(28));
    expect(await shared.check(12)).toBeUndefined();
    const short = await watchBalance(client(), new Map(), () => Promise.resolve(20));
    expect(await short.check(12)).toMatch(/fell by 40 credits .*more than the 32 credits it counted/);
    const unreadable = await watchBalance(client(), new Map(), () => Promise.reject(new Error('cut off')));
    expect(await unreadable.check(12)).toBeUndefined();
  });
});
