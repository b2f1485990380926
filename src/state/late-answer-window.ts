import { DEFAULT_REQUEST_TIMEOUT_MS } from '../service/request-timeout.js';

/**
 * How long after a runner's lease ended a create it sent may still be answered: it checked its lease
 * right before sending, and a request gets no answer past the request timeout; a few seconds more for
 * the answer to be stored.
 */
export const LATE_ANSWER_WINDOW_MS = DEFAULT_REQUEST_TIMEOUT_MS + 5_000;

/**
 * The one rule every taker of a run follows (#31.9): an apply that took a run over (both backends'
 * `execute/late-answer.ts`), and `state pull` and `state push`, which copy a run whose holder may have
 * lost its lease moments ago. How long it still waits for the answer to a create without an
 * idempotency key that the runner before it sent, whose lease ended `endedAgoMs` ago (PostgreSQL: the
 * lease row's expiry; the folder: the moment its lock's holder stopped creating, half its stale time
 * after its last refresh). 0: the create is uncertain now.
 */
export function lateAnswerWaitMs(endedAgoMs: number, windowMs = LATE_ANSWER_WINDOW_MS): number {
  return Math.max(0, windowMs - Math.max(0, endedAgoMs));
}

/** A create without an idempotency key, sent by a runner whose lease ended, with no answer on record. */
export interface UnansweredCreate {
  /** The job. */
  id: string;
  /** The runner that sent it. */
  machine: string;
  endedAgoMs: number;
}

/** How often the records are read again while waiting for late answers. */
const LOOK_EVERY_MS = 500;

/**
 * Waits, before a run is copied elsewhere (`state pull`, `state push`), for the answers that runners
 * whose leases ended moments ago may still store for their creates in flight (#31.9): the copy would
 * call such a create uncertain, and `--resend-uncertain` there would pay for it twice. `look` reads
 * the creates still unanswered (each answer stored meanwhile takes one off); the wait ends when none
 * is left or each one's {@link lateAnswerWaitMs} ran out. `onWait` hears once what is waited for.
 * Returns the creates still unanswered at the end (the copy calls them uncertain, as a taker would).
 */
export async function waitForLateAnswers(input: {
  look: () => Promise<UnansweredCreate[]>;
  windowMs?: number;
  sleep?: (ms: number) => Promise<void>;
  onWait?: (message: string) => void;
}): Promise<UnansweredCreate[]> {
  const { windowMs = LATE_ANSWER_WINDOW_MS, sleep = defaultSleep } = input;
  let announced = false;
  for (;;) {
    const pending = await input.look();
    const waitMs = Math.max(0, ...pending.map((one) => lateAnswerWaitMs(one.endedAgoMs, windowMs)));
    if (pending.length === 0 || waitMs <= 0) return pending;
    if (!announced) {
      announced = true;
      const first = pending[0] as UnansweredCreate;
      const jobs = pending.map((one) => one.id);
      input.onWait?.(
        `${jobs.length === 1 ? `Job ${first.id}` : `Jobs ${jobs.slice(0, 5).join(', ')}${jobs.length > 5 ? ` and ${jobs.length - 5} more` : ''}`}: a create without an idempotency key sent by ${first.machine}, whose lease ended ${Math.round(first.endedAgoMs / 1000)} s ago, has no answer on record; waiting up to ${Math.ceil(waitMs / 1000)} s for the answer that runner may still store before copying the run.`,
      );
    }
    await sleep(Math.min(waitMs, LOOK_EVERY_MS));
  }
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
