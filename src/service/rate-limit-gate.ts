/**
 * HTTP 429 is the account's rate limit, not one request's (api-notes: careful clients pause all their
 * requests). One gate per client: a 429 or `AGENT_QUEUE_FULL` on any request closes it until its
 * `Retry-After` passes, and every API request (creates, polls, presigns, uploads) waits at it first.
 * With {@link RateLimitGate.share}, the pause is the account's on every machine (#31.5).
 */
import type { Clock } from '../clock.js';
import type { ClientEvent } from './client-event.js';
import { readableUtcTime } from '../readable-time.js';

/**
 * The account's pauses as the other machines of the account see them (the state database, when
 * machines share one): what one machine met, all follow.
 */
export interface SharedRateLimit {
  /** Tells the other machines the account is paused `delayMs` from now (a longer pause stays). Never throws. */
  share(delayMs: number): void;
  /**
   * Calls `pause(delayMs)` for a pause in force now and for each one a machine shares from now on,
   * until the returned function is called.
   */
  follow(pause: (delayMs: number) => void): () => void;
}

export interface RateLimitGate {
  /** Resolves once no pause is in force; rejects with the signal's reason when aborted. */
  wait(signal?: AbortSignal): Promise<void>;
  /**
   * Pauses every request for `delayMs` from now (a later end wins), and shares the pause when the gate
   * is shared. Returns true when this starts a pause, false when it only extends one already in force:
   * the caller reports a pause once.
   */
  pause(delayMs: number): boolean;
  /** Epoch ms the current pause ends, or undefined when none is in force. */
  pausedUntil(): number | undefined;
  /**
   * Shares this gate's pauses with the account's other machines and follows theirs, until the returned
   * function is called (a gate is shared with one at a time).
   */
  share(shared: SharedRateLimit): () => void;
}

/**
 * `onEvent` hears of each pause another machine starts here (`rate-limit-followed`): a machine that
 * waits on another's 429 would otherwise stall without a word. This gate's own 429s are reported by
 * the request that met them (`rate-limit-pause`, from the retry loop).
 */
export function createRateLimitGate(clock: Clock, onEvent?: (event: ClientEvent) => void): RateLimitGate {
  let until = 0;
  let shared: SharedRateLimit | undefined;
  const extend = (delayMs: number): boolean => {
    const now = clock.now();
    const starts = until <= now;
    until = Math.max(until, now + delayMs);
    return starts;
  };
  return {
    async wait(signal) {
      // Looked at again after each sleep: another machine's pause may have moved the end meanwhile.
      for (let remaining = until - clock.now(); remaining > 0; remaining = until - clock.now()) {
        await clock.sleep(remaining, signal);
      }
    },
    pause(delayMs) {
      shared?.share(delayMs);
      return extend(delayMs);
    },
    pausedUntil() {
      return until > clock.now() ? until : undefined;
    },
    share(given) {
      shared = given;
      // Another machine's pause is followed, never shared again (it would echo between machines).
      const stop = given.follow((delayMs) => {
        if (!extend(delayMs)) return;
        onEvent?.({
          type: 'rate-limit-followed',
          delayMs,
          until,
          reason: `another machine of this account met HTTP 429 (too many requests); every request waits until ${readableUtcTime(until, { seconds: true })}`,
        });
      });
      return () => {
        stop();
        if (shared === given) shared = undefined;
      };
    },
  };
}
