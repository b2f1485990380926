import type { AccountPatch } from './types.js';

/**
 * The account's money (spec 2.5): credits are locked when a paid job is created, deducted free-first
 * when it completes and released when it fails (api-notes: failed jobs are not charged). The plan's
 * image quota is taken at create and given back on failure.
 */
export interface AccountState {
  freeCredit: number;
  purchasedCredit: number;
  lockedCredit: number;
  hasPurchased: boolean;
  subscriptionImageQuota: number;
}

export interface AccountInit {
  freeCredit?: number;
  purchasedCredit?: number;
  subscriptionImageQuota?: number;
}

export function createAccount(init: AccountInit | undefined): AccountState {
  const purchasedCredit = init?.purchasedCredit ?? 1000;
  return {
    freeCredit: init?.freeCredit ?? 200,
    purchasedCredit,
    lockedCredit: 0,
    hasPurchased: purchasedCredit > 0,
    subscriptionImageQuota: init?.subscriptionImageQuota ?? 20,
  };
}

/** `freeCredit + purchasedCredit - lockedCredit`, never below zero (a test may drain a locked account). */
export function computeAvailableCredit(account: AccountState): number {
  return Math.max(0, account.freeCredit + account.purchasedCredit - account.lockedCredit);
}

/** Locks `cost` for a new job; `false` (nothing locked) when the available credit is short. */
export function lockCredits(account: AccountState, cost: number): boolean {
  if (computeAvailableCredit(account) < cost) return false;
  account.lockedCredit += cost;
  return true;
}

/** A job completed: unlock `cost` and deduct it, free credit first, then purchased (spec 2.5). */
export function settleCredits(
  account: AccountState,
  cost: number,
): { fromFree: number; fromPurchased: number } {
  account.lockedCredit = Math.max(0, account.lockedCredit - cost);
  const fromFree = Math.min(account.freeCredit, cost);
  const fromPurchased = Math.min(account.purchasedCredit, cost - fromFree);
  account.freeCredit -= fromFree;
  account.purchasedCredit -= fromPurchased;
  return { fromFree, fromPurchased };
}

/** A job failed: unlock `cost` without deducting anything. */
export function releaseCredits(account: AccountState, cost: number): void {
  account.lockedCredit = Math.max(0, account.lockedCredit - cost);
}

/** Takes one image from the plan's quota; the remaining count, or `null` when none was left. */
export function takeImageQuota(account: AccountState): number | null {
  if (account.subscriptionImageQuota <= 0) return null;
  account.subscriptionImageQuota -= 1;
  return account.subscriptionImageQuota;
}

export function restoreImageQuota(account: AccountState): void {
  account.subscriptionImageQuota += 1;
}

export function patchAccount(account: AccountState, patch: AccountPatch): void {
  if (patch.freeCredit !== undefined) account.freeCredit = patch.freeCredit;
  if (patch.purchasedCredit !== undefined) account.purchasedCredit = patch.purchasedCredit;
  if (patch.subscriptionImageQuota !== undefined)
    account.subscriptionImageQuota = patch.subscriptionImageQuota;
  if (patch.hasPurchased !== undefined) account.hasPurchased = patch.hasPurchased;
}
