import { describe, expect, it } from 'vitest';
import { describeKeyWindowMiss } from '../../../src/plan/key-window.js';

describe('describeKeyWindowMiss', () => {
  it('says when an intent in the future of the clock was journaled in UTC words, to the second', () => {
    const intentAt = Date.UTC(2026, 10, 27, 7, 0, 17, 393);
    expect(describeKeyWindowMiss(intentAt - 90_000, intentAt)).toBe(
      "the create got no answer and was journaled at 27 Nov 2026, 07:00:17 UTC, 90 s in the future of this machine's clock (was the clock set back?): its age is unknown, it may be past the idempotency window, and a paid job may exist",
    );
  });
});
