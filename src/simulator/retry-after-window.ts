import type { SimulatorCore } from './core.js';

/** Requests whose arrival time is kept (`insideRetryAfterMs`); the count goes on past it. */
const KEPT_ARRIVALS = 1_000;

/**
 * A 429 with `Retry-After: seconds` was answered now: the account's window runs until then (a later
 * end wins; the window keeps the time of the 429 that opened it).
 */
export function openRetryAfterWindow(core: SimulatorCore, seconds: number): void {
  const now = core.now();
  const until = now + seconds * 1000;
  const window = core.retryAfterWindow;
  if (window === undefined || window.until <= now) core.retryAfterWindow = { openedAt: now, until };
  else window.until = Math.max(window.until, until);
}

/**
 * An API request arrived: counted when a `Retry-After` the simulator gave is still running, since
 * a client that honours it across all its machines sends nothing then (#31.5).
 */
export function countInsideRetryAfter(core: SimulatorCore): void {
  const window = core.retryAfterWindow;
  const now = core.now();
  if (window === undefined || now >= window.until) return;
  core.counters.requestsInsideRetryAfter += 1;
  if (core.counters.insideRetryAfterMs.length < KEPT_ARRIVALS) {
    core.counters.insideRetryAfterMs.push(now - window.openedAt);
  }
}
