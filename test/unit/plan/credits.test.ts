import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatCredits } from '../../../src/plan/credits.js';

/**
 * What formatCredits stands in for (it is written out so that plan never loads ICU's data):
 * `toLocaleString` makes this same formatter at each call (ECMA-402), so one is kept for speed.
 */
const icu = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const byIcu = (value: number) => icu.format(value);

describe('formatCredits', () => {
  it('writes what toLocaleString en-US with at most 2 decimals writes', () => {
    const cases = [
      0,
      -0,
      1,
      -1,
      12345.5,
      1234567.891,
      1.005,
      1.015,
      2.675,
      0.125,
      0.995,
      -0.995,
      9.995,
      99.995,
      999.995,
      -0.001,
      -0.005,
      0.005,
      0.004,
      1e-7,
      5e-3,
      1e21,
      1.5e21,
      123456789012345680000,
      1e15 + 0.25,
      Number.MAX_SAFE_INTEGER,
      Number.MAX_VALUE,
      Number.MIN_VALUE,
      NaN,
      Infinity,
      -Infinity,
    ];
    for (const value of cases) {
      expect(formatCredits(value), String(value)).toBe(
        value.toLocaleString('en-US', { maximumFractionDigits: 2 }),
      );
    }
  });

  it('agrees with toLocaleString on any number', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.double(), fc.double({ min: -1e9, max: 1e9 })),
        (value) => formatCredits(value) === byIcu(value),
      ),
      { numRuns: 20_000 },
    );
  });

  it('agrees on figures with a few decimals, where rounding halves decide', () => {
    const decimals = fc
      .tuple(fc.integer({ min: -10_000_000, max: 10_000_000 }), fc.integer({ min: 0, max: 5 }))
      .map(([units, places]) => units / 10 ** places);
    fc.assert(
      fc.property(decimals, (value) => formatCredits(value) === byIcu(value)),
      { numRuns: 20_000 },
    );
  });
});
