import type { Balance, Subscription } from '../service/types.js';
import type { CostReport, VerdictStatus } from './cost-report.js';
import { formatCredits, roundCredits } from './credits.js';

/** The lower of the manifest budget and `--max-credits`, when either is set. */
export function lowestCap(budget: number | undefined, maxCredits: number | undefined): number | undefined {
  const caps = [budget, maxCredits].filter((cap): cap is number => cap !== undefined);
  return caps.length === 0 ? undefined : Math.min(...caps);
}

/**
 * Against the available credit: what this run takes from the balance (`needed`). Against the budget
 * and `--max-credits`: what apply's budget would count, the state's earlier spending included.
 */
export function decideVerdict(
  neededAtMost: number,
  budget: { cap: number | undefined; alreadySpent: number; reserved: number },
  available: number | undefined,
  maybeCovered: number,
): CostReport['verdict'] {
  const needed = roundCredits(neededAtMost - maybeCovered);
  const checked = { budget: budget.cap !== undefined, balance: available !== undefined };
  const figures = [
    maybeCovered > 0
      ? `needs ${formatCredits(needed)} to ${formatCredits(neededAtMost)} credits (unclear subscription quota)`
      : `needs ${formatCredits(needed)} credits`,
  ];
  const counted = roundCredits(budget.alreadySpent + budget.reserved);
  if (budget.cap !== undefined) {
    figures.push(`budget ${formatCredits(budget.cap)}`);
    if (budget.alreadySpent > 0) figures.push(`${formatCredits(budget.alreadySpent)} already spent`);
    if (budget.reserved > needed) {
      figures.push(
        `${formatCredits(budget.reserved)} counted against the budget (image jobs the subscription may cover counted as paid)`,
      );
    }
  }
  if (available !== undefined) figures.push(`${formatCredits(available)} available`);
  else figures.push('balance not checked');
  let status: VerdictStatus = 'fits';
  const verdict: CostReport['verdict'] = { status, message: '', checked };
  if (available !== undefined && needed > available) {
    status = 'over-available';
    verdict.shortBy = roundCredits(needed - available);
    figures.push(`short by ${formatCredits(verdict.shortBy)}`);
  }
  if (budget.cap !== undefined && counted > budget.cap) {
    status = 'over-budget';
    verdict.overBudgetBy = roundCredits(counted - budget.cap);
    figures.push(`over budget by ${formatCredits(verdict.overBudgetBy)}`);
  }
  verdict.status = status;
  verdict.message = figures.join('; ');
  return verdict;
}

/** The assumptions the figures rest on, in plain sentences. */
export function buildNotes(
  subscription: Subscription | undefined,
  balance: Balance | undefined,
  maxAttempts: number,
): string[] {
  const notes = [
    `Failed jobs are not charged and only GENERATION_TIMEOUT and QUOTA_EXHAUSTED are retried, so retries should cost nothing extra; the all-attempts figure assumes each of ${maxAttempts} attempts is charged.`,
  ];
  if (subscription === undefined) {
    notes.push('The subscription could not be read: every image job is assumed to be paid in credits.');
  } else {
    notes.push('The subscription image allowance is assumed to cover one image job per unit, in plan order.');
  }
  if (balance === undefined) notes.push('The balance was not checked.');
  return notes;
}
