import type { PlannedJob } from '../manifest/planned-job.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../service/http.js';
import type { AttemptState } from '../state/job-state.js';
import { replayRecords } from '../state/replay-records.js';
import type { RunCoordination } from '../state/state-store.js';
import type { ExecutionContext } from './context.js';
import { sleepUnlessAborted } from './poll-job.js';

/**
 * How long after a runner's lease ended a create it sent may still be answered: it checked its lease
 * right before sending, and a request gets no answer past the request timeout; a few seconds more for
 * the answer to be stored.
 */
export const LATE_ANSWER_WINDOW_MS = DEFAULT_REQUEST_TIMEOUT_MS + 5_000;

/** How often the job's records are read while waiting for a late answer. */
const LOOK_EVERY_MS = 500;

/**
 * A create without an idempotency key that another runner sent and that has no answer on record
 * (#31.9): that runner's lease ended (taken over, expired, or `runner state lease --break`) moments
 * ago, and its create may still be in flight. Its answer, when it comes, is stored as a late record
 * (a job paid, or nothing made); calling the attempt uncertain before then would lose a paid job.
 * Waits, reading the job's records, until the answer is there or {@link LATE_ANSWER_WINDOW_MS} after
 * the lease ended. True when the job's state changed (it is in `ctx.jobs`, to be gone on from);
 * false at once when there is nothing to wait for, and when the wait ran out.
 */
export function createLateAnswerWait(
  coordination: RunCoordination,
  windowMs = LATE_ANSWER_WINDOW_MS,
): (ctx: ExecutionContext, job: PlannedJob, attempt: AttemptState) => Promise<boolean> {
  // Each attempt is waited for once: after the wait, it is uncertain as before.
  const waited = new Set<string>();
  return async (ctx, job, attempt) => {
    const key = `${job.id}\u0000${attempt.attempt}`;
    if (waited.has(key)) return false;
    waited.add(key);
    let sender: Awaited<ReturnType<RunCoordination['unansweredCreate']>>;
    try {
      sender = await coordination.unansweredCreate(job.id);
    } catch {
      return false;
    }
    if (sender === undefined || sender.endedAgoMs >= windowMs) return false;
    const deadline = ctx.clock.now() + windowMs - sender.endedAgoMs;
    ctx.emit({
      type: 'warning',
      id: job.id,
      message: `Job ${job.id}: its create (attempt ${attempt.attempt}, no idempotency key) was sent by ${sender.machine}, whose lease ended ${Math.round(sender.endedAgoMs / 1000)} s ago, and has no answer on record; waiting up to ${Math.ceil((deadline - ctx.clock.now()) / 1000)} s for the answer that runner may still store before calling it uncertain.`,
    });
    for (;;) {
      let rebuilt;
      try {
        rebuilt = replayRecords(
          await coordination.readJobRecords(job.id),
          `The records of job ${job.id} of run "${ctx.options.runId}"`,
        ).get(job.id);
      } catch {
        return false;
      }
      const now = rebuilt?.attempts.find((one) => one.attempt === attempt.attempt);
      if (rebuilt !== undefined && now !== undefined && isAnswered(now)) {
        ctx.jobs.set(job.id, rebuilt);
        return true;
      }
      const left = deadline - ctx.clock.now();
      if (left <= 0) return false;
      if (!(await sleepUnlessAborted(ctx, Math.min(left, LOOK_EVERY_MS)))) return false;
    }
  };
}

/** An attempt whose create got an answer on record: a job id, or a refusal. */
function isAnswered(attempt: AttemptState): boolean {
  return attempt.jobId !== undefined || (attempt.outcome !== 'creating' && attempt.outcome !== 'uncertain');
}
