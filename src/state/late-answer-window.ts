import { DEFAULT_REQUEST_TIMEOUT_MS } from '../service/http.js';

/**
 * How long after a runner's lease ended a create it sent may still be answered: it checked its lease
 * right before sending, and a request gets no answer past the request timeout; a few seconds more for
 * the answer to be stored.
 */
export const LATE_ANSWER_WINDOW_MS = DEFAULT_REQUEST_TIMEOUT_MS + 5_000;

/**
 * The one rule both backends' takers follow (#31.9): how long a runner that took a run over still
 * waits for the answer to a create without an idempotency key that the runner before it sent, whose
 * lease (the PostgreSQL lease row's expiry, or the moment the folder lock's holder stopped creating)
 * ended `endedAgoMs` ago. 0: nothing to wait for, the create is uncertain at once.
 */
export function lateAnswerWaitMs(endedAgoMs: number, windowMs = LATE_ANSWER_WINDOW_MS): number {
  return Math.max(0, windowMs - Math.max(0, endedAgoMs));
}
