import { describe, expect, it } from 'vitest';
import {
  computeAvailableCredit,
  createAccount,
  lockCredits,
  patchAccount,
  releaseCredits,
  restoreImageQuota,
  settleCredits,
  takeImageQuota,
} from '../../../src/simulator/accounting.js';

describe('simulator accounting', () => {
  it('computes availableCredit as free + purchased - locked', () => {
    const account = createAccount({ freeCredit: 10, purchasedCredit: 20 });
    expect(computeAvailableCredit(account)).toBe(30);
    expect(lockCredits(account, 12)).toBe(true);
    expect(account.lockedCredit).toBe(12);
    expect(computeAvailableCredit(account)).toBe(18);
  });

  it('refuses a lock beyond the available credit and locks nothing', () => {
    const account = createAccount({ freeCredit: 3, purchasedCredit: 2 });
    expect(lockCredits(account, 6)).toBe(false);
    expect(account.lockedCredit).toBe(0);
    expect(lockCredits(account, 5)).toBe(true);
  });

  it('deducts free credit first, then purchased, and unlocks', () => {
    const account = createAccount({ freeCredit: 3, purchasedCredit: 20 });
    lockCredits(account, 5);
    expect(settleCredits(account, 5)).toEqual({ fromFree: 3, fromPurchased: 2 });
    expect(account).toMatchObject({ freeCredit: 0, purchasedCredit: 18, lockedCredit: 0 });
  });

  it('releases a failed job without deducting', () => {
    const account = createAccount({ freeCredit: 3, purchasedCredit: 20 });
    lockCredits(account, 5);
    releaseCredits(account, 5);
    expect(account).toMatchObject({ freeCredit: 3, purchasedCredit: 20, lockedCredit: 0 });
  });

  it('takes the plan quota until it is gone, and gives it back', () => {
    const account = createAccount({ subscriptionImageQuota: 1 });
    expect(takeImageQuota(account)).toBe(0);
    expect(takeImageQuota(account)).toBeNull();
    restoreImageQuota(account);
    expect(account.subscriptionImageQuota).toBe(1);
  });

  it('never reports negative availableCredit after a test drains a locked account', () => {
    const account = createAccount({ freeCredit: 10, purchasedCredit: 0 });
    lockCredits(account, 8);
    patchAccount(account, { freeCredit: 0 });
    expect(computeAvailableCredit(account)).toBe(0);
  });
});
