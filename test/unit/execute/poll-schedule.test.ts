import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateRemainingMs, nextPollDelay } from '../../../src/execute/poll-schedule.js';

const RANGE = [3000, 5000] as const;

describe('estimateRemainingMs', () => {
  it('extrapolates from the first and the latest sample', () => {
    // 20 % → 60 % in 16 s: 2.5 %/s, so 40 % more takes 16 s.
    expect(estimateRemainingMs({ at: 10_000, progress: 20 }, { at: 26_000, progress: 60 })).toBe(16_000);
  });

  it('gives no estimate without forward progress', () => {
    expect(estimateRemainingMs({ at: 0, progress: 30 }, { at: 4000, progress: 30 })).toBeUndefined();
    expect(estimateRemainingMs({ at: 0, progress: 30 }, { at: 0, progress: 30 })).toBeUndefined();
    expect(estimateRemainingMs({ at: 0, progress: 50 }, { at: 4000, progress: 40 })).toBeUndefined();
  });
});

describe('nextPollDelay', () => {
  it('is uniform jitter within the range without an estimate', () => {
    expect(nextPollDelay(RANGE, () => 0, undefined)).toBe(3000);
    expect(nextPollDelay(RANGE, () => 0.5, undefined)).toBe(4000);
    expect(nextPollDelay(RANGE, () => 0.999_999, undefined)).toBe(5000);
  });

  it('lands just after the expected end when it is 3 to 5 s away', () => {
    expect(nextPollDelay(RANGE, () => 0, 3500)).toBe(3650);
  });

  it('waits the minimum when the end is nearer than 3 s, and aims the next poll when it is further', () => {
    expect(nextPollDelay(RANGE, () => 0, 500)).toBe(3000);
    // 8 s away: wait 4.15 s so the following poll can land just after the end.
    expect(nextPollDelay(RANGE, () => 0, 8000)).toBe(4150);
    expect(nextPollDelay(RANGE, () => 0, 60_000)).toBe(5000);
  });

  it("always stays within the service's 3 to 5 s (property)", () => {
    fc.assert(
      fc.property(
        fc.option(fc.double({ min: -1e6, max: 1e7, noNaN: true }), { nil: undefined }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (remaining, random) => {
          const delay = nextPollDelay(RANGE, () => random, remaining);
          return delay >= RANGE[0] && delay <= RANGE[1];
        },
      ),
    );
  });

  it('for linear progress, a chain of polls sees the end within the margin when it can (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 20_000, max: 200_000 }), (durationMs) => {
        // Polls from the 10 s first poll on, progress reported in whole percent like the service.
        let now = 10_000;
        let first: { at: number; progress: number } | undefined;
        for (;;) {
          if (now >= durationMs) return now - durationMs <= 3150;
          const sample = { at: now, progress: Math.floor((now / durationMs) * 100) };
          first ??= sample;
          now += nextPollDelay(RANGE, () => 0.5, estimateRemainingMs(first, sample));
        }
      }),
    );
  });
});
