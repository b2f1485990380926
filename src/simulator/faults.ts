import type { FaultOptions } from './types.js';
import { createRandom } from './random.js';

/** The answer-replacing faults; `slow` only adds latency and combines with any of them. */
export type FaultKind = 'serverError' | 'rateLimit' | 'reset';

export interface FaultDecision {
  kind: FaultKind | null;
  /** Extra latency before answering, in real (unscaled) milliseconds. */
  slowMs: number;
  /**
   * For a 500 or a reset on a create: process the request first, then lose the answer
   * (the job exists, the client never learns its id — the case idempotency keys are for).
   */
  afterProcessing: boolean;
}

export interface FaultInjector {
  /** Draws the fate of the next API request. Deterministic for a seed and a request order. */
  decide(isCreate: boolean): FaultDecision;
}

const NO_FAULT: FaultDecision = { kind: null, slowMs: 0, afterProcessing: false };

/**
 * Seeded fault injection. Every call draws exactly three numbers, whatever it decides, so one
 * request's outcome never shifts the stream for the next.
 */
export function createFaultInjector(seed: number, faults: FaultOptions | undefined): FaultInjector {
  const random = createRandom(seed ^ 0x5eed_fa17);
  const serverError = faults?.serverError ?? 0;
  const rateLimit = faults?.rateLimit ?? 0;
  const reset = faults?.reset ?? 0;
  const slow = faults?.slow ?? 0;
  const slowMs = faults?.slowMs ?? 500;
  const enabled = serverError + rateLimit + reset + slow > 0;
  return {
    decide(isCreate) {
      if (!enabled) return NO_FAULT;
      const kindDraw = random();
      const slowDraw = random();
      const afterDraw = random();
      let kind: FaultKind | null = null;
      if (kindDraw < serverError) kind = 'serverError';
      else if (kindDraw < serverError + rateLimit) kind = 'rateLimit';
      else if (kindDraw < serverError + rateLimit + reset) kind = 'reset';
      const afterProcessing = isCreate && kind !== null && kind !== 'rateLimit' && afterDraw < 0.5;
      return { kind, slowMs: slowDraw < slow ? slowMs : 0, afterProcessing };
    },
  };
}
