/**
 * HTTP 429 is the account's rate limit, not one request's (api-notes: careful clients pause all their
 * requests). One gate per client: a 429 or `AGENT_QUEUE_FULL` on any request closes it until its
 * `Retry-After` passes, and every API request (creates, polls, presigns, uploads) waits at it first.
 */
import type { Clock } from '../clock.js';

export interface RateLimitGate {
  /** Resolves once no pause is in force; rejects with the signal's reason when aborted. */
  wait(signal?: AbortSignal): Promise<void>;
  /**
   * Pauses every request for `delayMs` from now (a later end wins). Returns true when this starts a
   * pause, false when it only extends one already in force: the caller reports a pause once.
   */
  pause(delayMs: number): boolean;
  /** Epoch ms the current pause ends, or undefined when none is in force. */
  pausedUntil(): number | undefined;
}

export function createRateLimitGate(clock: Clock): RateLimitGate {
  let until = 0;
  return {
    async wait(signal) {
      for (let remaining = until - clock.now(); remaining > 0; remaining = until - clock.now()) {
        await clock.sleep(remaining, signal);
      }
    },
    pause(delayMs) {
      const now = clock.now();
      const starts = until <= now;
      until = Math.max(until, now + delayMs);
      return starts;
    },
    pausedUntil() {
      return until > clock.now() ? until : undefined;
    },
  };
}
