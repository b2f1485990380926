import type { Balance } from '../../service/types.js';
import type { Style } from '../../text-style.js';

/** The balance as a small table. The key never reaches here: the client drops it (spec 2.5). */
export function renderBalance(balance: Balance, style: Style): string {
  const rows: [string, string][] = [['available', style.bold(String(balance.availableCredit))]];
  // A service may send only the available figure (api-notes): show what it sent.
  if (balance.freeCredit !== undefined) rows.push(['free', String(balance.freeCredit)]);
  if (balance.purchasedCredit !== undefined) rows.push(['purchased', String(balance.purchasedCredit)]);
  if (balance.lockedCredit !== undefined) rows.push(['locked (running jobs)', String(balance.lockedCredit)]);
  if (balance.hasPurchased !== undefined) rows.push(['has purchased', balance.hasPurchased ? 'yes' : 'no']);
  if (balance.topupMemo !== undefined) rows.push(['top-up memo', balance.topupMemo]);
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n');
}
