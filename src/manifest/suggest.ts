import { closest, distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `input` when it is close enough to be a plausible typo, else undefined.
 * "Close enough": one edit for inputs of up to 3 characters, else a third of the length in edits
 * (at least 2, so that a swapped pair of letters is caught; at most 3). Case is ignored.
 */
export function suggestClosest(input: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0 || input === '') return undefined;
  const best = closest(input, [...candidates]);
  const allowed = input.length <= 3 ? 1 : Math.min(3, Math.max(2, Math.floor(input.length / 3)));
  const lower = input.toLowerCase();
  if (best.toLowerCase() === lower) return best;
  return distance(lower, best.toLowerCase()) <= allowed ? best : undefined;
}

/** `did you mean "x"?` for the closest candidate, or undefined. */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const best = suggestClosest(input, candidates);
  return best === undefined ? undefined : `did you mean "${best}"?`;
}
