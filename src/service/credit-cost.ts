/**
 * Credit figures the service sends, checked before the runner prices or counts anything with them: a
 * catalog's `creditCost` (spec 2.2) and the cost a create answer or a polled job reports (spec 2.6).
 * A negative, non-finite or non-numeric figure would make a negative estimate that "fits" any budget,
 * or a negative spend that hides real charges (issue #24.2).
 */

/** Numbers may arrive as strings (api-notes): `"12"` and `" 1.5 "` are read, `"12 credits"` is not. */
const NUMERIC_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * The most credits one figure may say (a billion). No job or price comes near it; a reported `1e308`
 * is finite but not a count: two of them sum to `Infinity` (`null` in JSON) and print as `1e+308`
 * (issue #32.1), and far below that, sums of credits stop being exact.
 */
export const MAX_CREDITS = 1e9;

/**
 * The figure as a usable credit count: a finite number from 0 to {@link MAX_CREDITS}, given as a
 * number or as numeric text; `undefined` for anything else (negative, `1e308`, `Infinity`, `NaN`,
 * `null`, `"free"`, an object).
 */
export function readCredits(value: unknown): number | undefined {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && NUMERIC_TEXT.test(value)
        ? Number(value)
        : NaN;
  return Number.isFinite(number) && number >= 0 && number <= MAX_CREDITS ? number : undefined;
}

/** A received figure as it reads in a message: `-30`, `"abc"`, `null`, `Infinity` (at most 60 characters). */
export function describeCredits(value: unknown): string {
  const text =
    typeof value === 'number'
      ? String(value)
      : value === undefined
        ? 'nothing'
        : (JSON.stringify(value) ?? `a ${typeof value}`);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** The problem with a catalog model's `creditCost`, or `undefined` when it is usable. */
export function checkCatalogCreditCost(model: { slug: string; creditCost: unknown }): string | undefined {
  if (readCredits(model.creditCost) !== undefined) return undefined;
  return `model ${JSON.stringify(model.slug)} has creditCost ${describeCredits(model.creditCost)} in the catalog; expected a finite number of credits, 0 or more and at most 1,000,000,000, so its jobs cannot be priced`;
}
