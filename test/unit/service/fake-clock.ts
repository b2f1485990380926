import type { Clock } from '../../../src/clock.js';

/** A clock that never waits: it records each requested sleep and advances its own time. */
export interface FakeClock extends Clock {
  readonly sleeps: number[];
}

export function createFakeClock(start = Date.parse('2026-01-01T00:00:00Z')): FakeClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: (ms, signal) => {
      if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
      sleeps.push(ms);
      now += ms;
      return Promise.resolve();
    },
  };
}
