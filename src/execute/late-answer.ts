import type { PlannedJob } from '../manifest/planned-job.js';
import {
  type AttemptState,
  type JobState,
  LATE_ANSWER_WINDOW_MS,
  type LateAnswers,
  lateAnswerWaitMs,
  replayRecords,
  type RunCoordination,
} from '../state/index.js';
import type { ExecutionContext } from './context.js';
import { sleepUnlessAborted } from './poll-job.js';

// The rule lives in the state: `state pull` and `state push` follow it too.
export { LATE_ANSWER_WINDOW_MS, lateAnswerWaitMs };

/** How often the job's records are read while waiting for a late answer. */
const LOOK_EVERY_MS = 500;

/**
 * A create without an idempotency key that another runner sent and that has no answer on record
 * (#31.9): that runner's lease ended (taken over, expired, `runner state lease --break`, a folder lock
 * gone stale) moments ago, and its create may still be in flight. Its answer, when it comes, is stored
 * as a late record (a job paid, or nothing made); calling the attempt uncertain before then would
 * lose a paid job, and `--resend-uncertain` would pay it twice. Waits, looking for the answer, for
 * {@link lateAnswerWaitMs}. True when the job's state changed (it is in `ctx.jobs`, to be gone on
 * from); false at once when there is nothing to wait for, and when the wait ran out.
 */
export function createLateAnswerWait(
  answers: LateAnswers,
  windowMs = LATE_ANSWER_WINDOW_MS,
): (ctx: ExecutionContext, job: PlannedJob, attempt: AttemptState) => Promise<boolean> {
  // Each attempt is waited for once: after the wait, it is uncertain as before.
  const waited = new Set<string>();
  return async (ctx, job, attempt) => {
    const key = `${job.id}\u0000${attempt.attempt}`;
    if (waited.has(key)) return false;
    waited.add(key);
    let sender: Awaited<ReturnType<LateAnswers['unansweredCreate']>>;
    try {
      sender = await answers.unansweredCreate(job.id);
    } catch {
      return false;
    }
    const waitMs = sender === undefined ? 0 : lateAnswerWaitMs(sender.endedAgoMs, windowMs);
    if (sender === undefined || waitMs <= 0) return false;
    const deadline = ctx.clock.now() + waitMs;
    ctx.emit({
      type: 'warning',
      id: job.id,
      message: `Job ${job.id}: its create (attempt ${attempt.attempt}, no idempotency key) was sent by ${sender.machine}, whose lease ended ${Math.round(sender.endedAgoMs / 1000)} s ago, and has no answer on record; waiting up to ${Math.ceil(waitMs / 1000)} s for the answer that runner may still store before calling it uncertain.`,
    });
    for (;;) {
      const held = ctx.jobs.get(job.id);
      let answered: JobState | undefined;
      try {
        answered =
          held === undefined ? undefined : await answers.lookForAnswer(job.id, held, attempt.attempt);
      } catch {
        return false;
      }
      if (answered !== undefined) {
        ctx.jobs.set(job.id, answered);
        return true;
      }
      const left = deadline - ctx.clock.now();
      if (left <= 0) return false;
      if (!(await sleepUnlessAborted(ctx, Math.min(left, LOOK_EVERY_MS)))) return false;
    }
  };
}

/**
 * A shared run's late answers (PostgreSQL): stored as the job's records, read back and replayed with
 * a replay's checks.
 */
export function lateAnswersOf(coordination: RunCoordination, runId: string): LateAnswers {
  return {
    unansweredCreate: (id) => coordination.unansweredCreate(id),
    async lookForAnswer(id, _job, attempt) {
      const rebuilt = replayRecords(
        await coordination.readJobRecords(id),
        `The records of job ${id} of run "${runId}"`,
      ).get(id);
      const now = rebuilt?.attempts.find((one) => one.attempt === attempt);
      return rebuilt !== undefined && now !== undefined && isAnswered(now) ? rebuilt : undefined;
    },
  };
}

/** An attempt whose create got an answer on record: a job id, or a refusal. */
export function isAnswered(attempt: AttemptState): boolean {
  return attempt.jobId !== undefined || (attempt.outcome !== 'creating' && attempt.outcome !== 'uncertain');
}
