import { readableUtcTime } from '../readable-time.js';

/**
 * Where an unanswered create stands against the service's idempotency-key window (spec: a key is
 * remembered for a limited time after its first send).
 * - `inside`: the same key may be re-sent; the service answers with the job it already made
 * - `past`: the key may be forgotten; a re-send could create (and charge) a second job
 * - `unknown`: the intent lies in the future of this clock (the clock was set back since), so its age
 *   is unknown: it may well be past the window, and is treated like `past` (#11.3)
 */
export type KeyWindowPosition = 'inside' | 'past' | 'unknown';

/** Where an intent journaled at `intentAt` stands at `now` against a window of `windowMs`. */
export function locateInKeyWindow(now: number, intentAt: number, windowMs: number): KeyWindowPosition {
  const age = now - intentAt;
  if (age < 0) return 'unknown';
  return age < windowMs ? 'inside' : 'past';
}

/** Why an unanswered create may not be re-sent with its key: for `uncertain` records and messages. */
export function describeKeyWindowMiss(now: number, intentAt: number): string {
  const age = now - intentAt;
  if (age < 0) {
    return `the create got no answer and was journaled at ${readableUtcTime(intentAt, { seconds: true })}, ${Math.round(-age / 1000)} s in the future of this machine's clock (was the clock set back?): its age is unknown, it may be past the idempotency window, and a paid job may exist`;
  }
  return `the create got no answer ${Math.round(age / 1000)} s ago, past the idempotency window: a paid job may exist`;
}
