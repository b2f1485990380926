import { entryKeys } from './axes.js';
import { entries, state } from './model.js';
import { reviewFilterMiss } from './review-store.js';

/**
 * Which filters an entry fails: true shows it; the name of the one filter it fails (for that filter's
 * counts: an option's count is how many jobs it would show); false when it fails two or more.
 */
export function missedFilter(index: number): boolean | string {
  let missed: string | null = null;
  let misses = 0;
  if (state.status !== '' && entries[index]!.status !== state.status) {
    misses++;
    missed = 'status';
  }
  if (reviewFilterMiss(index)) {
    misses++;
    missed = 'review';
  }
  for (const axis in state.axes) {
    const wanted = state.axes[axis];
    if (wanted === '' || entryKeys[index]![axis] === wanted) continue;
    if (++misses > 1) return false;
    missed = axis;
  }
  return misses === 0 ? true : (missed as string);
}
