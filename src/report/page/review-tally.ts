import { byId } from './dom.js';
import { missedFilter } from './filters.js';
import { entries, state, type ReviewFilter } from './model.js';
import { verdictOf } from './review-store.js';

/** The review's tally ("2 rejected, 5 approved, 9 to review") and its filter by decision. */

function tallyCounts(): Record<'rejected' | 'approved' | 'to-review', number> {
  const counts = { rejected: 0, approved: 0, 'to-review': 0 };
  for (let index = 0; index < entries.length; index++) {
    const verdict = verdictOf(index);
    if (verdict !== 'none') counts[verdict]++;
  }
  return counts;
}

export function updateTally(): void {
  const counts = tallyCounts();
  byId('review-tally').textContent =
    counts.rejected + ' rejected, ' + counts.approved + ' approved, ' + counts['to-review'] + ' to review';
  // The filter's counts follow the other filters, as theirs do.
  const shown: Record<ReviewFilter, number> = { '': 0, rejected: 0, approved: 0, 'to-review': 0 };
  for (let index = 0; index < entries.length; index++) {
    const missed = missedFilter(index);
    if (missed !== true && missed !== 'review') continue;
    shown['']++;
    const verdict = verdictOf(index);
    if (verdict !== 'none') shown[verdict]++;
  }
  Array.from(byId<HTMLSelectElement>('filter-review').options).forEach((node) => {
    node.textContent =
      (node.value === '' ? 'all' : node.value.replace('-', ' ')) +
      ' (' +
      shown[node.value as ReviewFilter] +
      ')';
  });
  // A job leaving the filtered decision hides its card at the next refresh, not under the pointer.
}

/** The review's filter as the URL hash gives it. */
export function readReviewHash(params: URLSearchParams): void {
  const wanted = params.get('review') || '';
  state.review = ['rejected', 'approved', 'to-review'].indexOf(wanted) >= 0 ? (wanted as ReviewFilter) : '';
  const select = document.getElementById('filter-review') as HTMLSelectElement | null;
  if (select) select.value = state.review;
}
