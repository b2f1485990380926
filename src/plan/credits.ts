/** Rounds a credit figure to 6 decimal places, so sums of fractional costs print cleanly. */
export function roundCredits(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** A credit figure for people: at most 2 decimals, thousands grouped (`12,345.5`). */
export function formatCredits(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
}
