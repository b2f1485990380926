/**
 * Credit figures the service sends, checked before the runner prices or counts anything with them: a
 * catalog's `creditCost` (spec 2.2) and the cost a create answer or a polled job reports (spec 2.6).
 * A negative, non-finite or non-numeric figure would make a negative estimate that "fits" any budget,
 * or a negative spend that hides real charges (issue #24.2).
 */

/** Numbers may arrive as strings (api-notes): `"12"` and `" 1.5 "` are read, `"12 credits"` is not. */
const NUMERIC_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * The figure as a usable credit count: a finite number of 0 or more, given as a number or as numeric
 * text; `undefined` for anything else (negative, `Infinity`, `NaN`, `null`, `"free"`, an object).
 */
export function readCredits(value: unknown): number | undefined {
  const number =
    typeof value === 'number'
      ? value
      : typeof value === 'string' && NUMERIC_TEXT.test(value)
        ? Number(value)
        : NaN;
  return Number.isFinite(number) && number >= 0 ? number : undefined;
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
  return `model ${JSON.stringify(model.slug)} has creditCost ${describeCredits(model.creditCost)} in the catalog; expected a finite number of credits, 0 or more, so its jobs cannot be priced`;
}
