import { distance } from 'fastest-levenshtein';

/**
 * The candidate a mistyped name most likely meant, or `undefined` when none is close. Case, `-`, `_`
 * and spaces are ignored first (`aspect_ratio` → `aspectRatio`); otherwise the nearest candidate by
 * edit distance wins when it is within a third of the longer name (at least 2 edits, so a swapped pair
 * of letters is caught), except that a name of up to 3 characters allows one edit: `ab` is not `id`.
 */
export function suggestClosest(input: string, candidates: Iterable<string>): string | undefined {
  const wanted = normalize(input);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const normalized = normalize(candidate);
    if (normalized === wanted) return candidate;
    const edits = distance(wanted, normalized);
    const allowed =
      wanted.length <= 3 ? 1 : Math.max(2, Math.floor(Math.max(wanted.length, normalized.length) / 3));
    if (edits <= allowed && edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
    }
  }
  return best;
}

/** `did you mean "x"?`, or `undefined` when there is nothing to suggest. */
export function didYouMean(input: string, candidates: Iterable<string>): string | undefined {
  const match = suggestClosest(input, candidates);
  return match === undefined ? undefined : `did you mean ${JSON.stringify(match)}?`;
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_\s]/g, '');
}
