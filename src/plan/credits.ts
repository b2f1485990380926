/** Rounds a credit figure to 6 decimal places, so sums of fractional costs print cleanly. */
export function roundCredits(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/**
 * A credit figure for people: at most 2 decimals, thousands grouped (`12,345.5`). The same text as
 * `value.toLocaleString('en-US', { maximumFractionDigits: 2 })` (a property test holds it so), written
 * out because the first use of Intl loads ICU's data, ~40 ms of every `runner plan` (bench/README.md,
 * #34). Like ICU, it rounds the shortest decimal that reads back as `value` (what `String(value)`
 * writes), half away from zero, so 1.005 shows as 1.01 and -0.001 as -0.
 */
export function formatCredits(value: number): string {
  if (!Number.isFinite(value)) return value.toLocaleString('en-US', { maximumFractionDigits: 2 });
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  const { digits, point } = roundedDigits(shortestDecimal(Math.abs(value)), 2);
  const whole = point <= 0 ? '0' : digits.slice(0, point).padEnd(point, '0');
  const fraction = (point >= 0 ? digits.slice(point) : '0'.repeat(-point) + digits).replace(/0+$/, '');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${sign}${grouped}${fraction === '' ? '' : `.${fraction}`}`;
}

/** A decimal as significant digits and where the point goes: 0.`digits` × 10^`point`. */
interface Decimal {
  digits: string;
  point: number;
}

/** The shortest decimal of a finite `value` ≥ 0 that reads back as it (ECMAScript's Number::toString). */
function shortestDecimal(value: number): Decimal {
  if (value === 0) return { digits: '', point: 0 };
  const text = String(value);
  const exponential = /^(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (exponential !== null) {
    const [, first = '', rest = '', exponent = '0'] = exponential;
    return { digits: first + rest, point: Number(exponent) + 1 };
  }
  const [whole = '', fraction = ''] = text.split('.');
  if (whole !== '0') return { digits: whole + fraction, point: whole.length };
  const significant = fraction.replace(/^0+/, '');
  return { digits: significant, point: significant.length - fraction.length };
}

/** `decimal` rounded, half away from zero, to `places` digits after the point. */
function roundedDigits({ digits, point }: Decimal, places: number): Decimal {
  const keep = point + places;
  if (digits.length <= keep) return { digits, point };
  if (keep < 0) return { digits: '', point: 0 };
  const kept = digits.slice(0, keep);
  if ((digits[keep] ?? '0') < '5') return { digits: kept, point };
  // Add one at the last kept digit: trailing 9s become 0s; all 9s (or none kept) carry into a new digit.
  const nines = /9*$/.exec(kept)?.[0].length ?? 0;
  const head = kept.slice(0, kept.length - nines);
  if (head === '') return { digits: `1${'0'.repeat(nines)}`, point: point + 1 };
  const last = head.charCodeAt(head.length - 1) - 48;
  return { digits: `${head.slice(0, -1)}${last + 1}${'0'.repeat(nines)}`, point };
}
