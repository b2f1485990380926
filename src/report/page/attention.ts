import { byId } from './dom.js';
import { entries } from './model.js';

// What needs someone (failed, uncertain, deferred, results not on this machine) comes first in the
// gallery (#33.4), the worst first; the rest stay in manifest order.
const ATTENTION: Partial<Record<string, number>> = { failed: 1, uncertain: 2, deferred: 3, downloading: 4 };
const ATTENTION_LABEL: Partial<Record<string, string>> = {
  failed: 'failed',
  uncertain: 'uncertain',
  deferred: 'deferred',
  downloading: 'not on this machine',
};

const rank = (index: number): number | undefined => ATTENTION[entries[index]!.status];

/** The shown jobs (entry indexes) in the gallery's order. */
export function attentionFirst(shown: number[]): number[] {
  const first = shown.filter((index) => rank(index));
  if (first.length === 0) return shown;
  first.sort((a, b) => rank(a)! - rank(b)! || a - b);
  return first.concat(shown.filter((index) => !rank(index)));
}

/** The header's line on what needs attention, from the count of each status. */
export function attentionSummary(counts: Partial<Record<string, number>>): void {
  const parts = Object.keys(ATTENTION)
    .filter((status) => counts[status])
    .map((status) => String(counts[status]) + ' ' + ATTENTION_LABEL[status]);
  const box = byId('attention');
  box.hidden = parts.length === 0;
  box.textContent =
    parts.length === 0
      ? ''
      : 'Needs attention: ' + parts.join(', ') + ' (first in the gallery, with what to run)';
}
