import { getJobKind } from '../kinds/index.js';
import { matchesPlannedJob } from '../catalog/payload-hash.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import { readableUtcTime } from '../readable-time.js';
import type { JobRecord } from '../service/types.js';
import type { AttemptState, JobState } from '../state/index.js';
import type { ExecutionContext } from './context.js';
import { createAttempt, warnUnusableCost } from './create-job.js';
import { describeKeyWindowMiss } from '../plan/key-window.js';
import { nextStep, stepViewOf, type StepPolicy } from '../plan/next-step.js';
import { describeSearch, findLostJob } from './find-lost-job.js';
import type { JobOutcome } from './events.js';
import { computeRetryDelay, decideFailure } from './failure-policy.js';
import { pollJob, sleepUnlessAborted } from './poll-job.js';
import { liveAttempt } from './polled-cost.js';

/**
 * Drives one job from wherever the journal left it to an outcome for this run: skip what is done,
 * poll what is open, re-send an unanswered keyed create inside the key's window, create the rest,
 * and apply the failure policy. Runs inside a concurrency slot.
 */
export async function runJob(ctx: ExecutionContext, job: PlannedJob): Promise<JobOutcome> {
  try {
    return await driveJob(ctx, job);
  } finally {
    // Ended without showing its model's price (under a cap): the model's next create may go now.
    await ctx.budget.endProbe(job.id);
  }
}

async function driveJob(ctx: ExecutionContext, job: PlannedJob): Promise<JobOutcome> {
  let retriedFailed = false;
  // A replaced job gets exactly one new attempt in this run, whatever that attempt's outcome.
  let replaceDue = ctx.options.replace.has(job.id);
  const policy = (): StepPolicy => ({
    replaceDue,
    retryFailed: ctx.options.retryFailed && !retriedFailed,
    resendUncertain: ctx.options.onUncertain === 'resend',
    idempotent: getJobKind(job.kind).idempotent,
    keyWindowMs: ctx.options.idempotencyWindowMs,
  });
  for (;;) {
    const state = ctx.jobs.get(job.id);
    const last = state?.attempts.at(-1);
    const samePayload = last === undefined || isSamePayloadHash(last.payloadHash, job);
    const step = nextStep(
      state === undefined ? undefined : stepViewOf(state),
      samePayload,
      policy(),
      ctx.clock.now(),
    );
    const nextAttempt = (state?.attempts.length ?? 0) + 1;
    if (state === undefined || last === undefined) {
      const created = await createAttempt(ctx, job, nextAttempt, false);
      if (created !== 'open') return created;
      continue;
    }
    switch (step.kind) {
      case 'skip':
        emitDoneSkipped(ctx, job.id, last.attempt, last.jobId, countOwed(ctx, state));
        return 'done';
      case 'give-up':
        if (!retriedFailed)
          ctx.emit({
            type: 'job-skipped',
            id: job.id,
            reason: 'failed',
            detail: last.error ?? last.failureKind ?? 'failed earlier',
          });
        return 'failed';
      case 'wait':
        ctx.emit({
          type: 'job-skipped',
          id: job.id,
          reason: 'deferred',
          detail: `retry not before ${readableUtcTime(step.until, { seconds: true })}`,
        });
        return 'deferred';
      case 'follow': {
        if (step.then === 'create') {
          // An open paid job is followed to its end before anything is re-sent, whatever changed (#11.2).
          ctx.emit({
            type: 'warning',
            id: job.id,
            message: `Job ${job.id} changed since attempt ${last.attempt} was sent; that job (${last.jobId}) is followed to its end before the changed job is created.`,
          });
          const earlier = await followOpenAttempt(ctx, job, last);
          if (earlier === 'still-running' || earlier === 'uncertain') return earlier;
          // The changed job itself is not created once creating has stopped: it stays pending.
          if (ctx.stopReason() !== undefined) return 'pending';
          const created = await createAttempt(ctx, job, nextAttempt, false);
          if (created !== 'open') return created;
          continue;
        }
        // An open job, or a job id the service once gave and later denied (HTTP 404 while polling) or
        // reported complete without a result it names: asking again costs nothing and recovers a paid
        // result if that was passing.
        const outcome = await followOpenAttempt(ctx, job, last);
        if (outcome !== undefined) return outcome;
        continue;
      }
      case 'create': {
        if (step.why === 'changed' && state.status === 'creating') {
          ctx.emit({
            type: 'warning',
            id: job.id,
            message: `Job ${job.id} changed since attempt ${last.attempt} was sent without an answer; a new job is created and the earlier create is no longer followed.`,
          });
        }
        if (step.why === 'replace') {
          replaceDue = false;
          retriedFailed = true;
          const created = await createAttempt(ctx, job, nextAttempt, false);
          // Not created (a budget or credit stop): the job is counted as the journal has it, as `status` does.
          if (created === 'pending') return outcomeOfStatus(ctx.jobs.get(job.id)?.status ?? state.status);
          ctx.emit({
            type: 'warning',
            id: job.id,
            message: `Job ${job.id} is replaced: attempt ${nextAttempt} was sent; attempt ${last.attempt} (${state.status}) is superseded.`,
          });
          if (created !== 'open') return created;
          continue;
        }
        if (step.why === 'retry-failed') retriedFailed = true;
        const created = await createAttempt(ctx, job, nextAttempt, false);
        if (created !== 'open') return created;
        continue;
      }
      case 'look-up': {
        // A create without a key whose answer was lost: look for the job before giving up (#11.9).
        const search = await findLostJob(ctx, job, last);
        if (search.kind === 'found') {
          await adoptLostJob(ctx, job, last, search.jobId);
          continue;
        }
        ctx.emit({
          type: 'job-skipped',
          id: job.id,
          reason: 'uncertain',
          detail: `${last.uncertainReason ?? 'a create whose answer was lost'}; ${describeSearch(search)}`,
        });
        return 'uncertain';
      }
      case 'resend': {
        ctx.emit({
          type: 'job-uncertain',
          id: job.id,
          attempt: last.attempt,
          reason: last.uncertainReason ?? 'answer lost',
          action: 'resent',
        });
        const resent = await createAttempt(ctx, job, last.attempt, true);
        if (resent !== 'open') return resent === 'creating' ? 'uncertain' : resent;
        continue;
      }
      case 'resend-with-key': {
        const resent = await createAttempt(ctx, job, last.attempt, true);
        if (resent !== 'open') return resent;
        continue;
      }
      case 'settle-lost-create': {
        const settled = await settleLostCreate(ctx, job, last);
        if (settled !== 'open') return settled;
        continue;
      }
    }
  }
}

/** A job's status as this run's outcome (an open job is still running). */
function outcomeOfStatus(status: JobState['status']): JobOutcome {
  return status === 'open' ? 'still-running' : status;
}

/**
 * The `job-skipped` event of a job done in an earlier apply; `owed` results of it are downloaded
 * next, and the event says so rather than calling the job finished (#20.8).
 */
export function emitDoneSkipped(
  ctx: ExecutionContext,
  id: string,
  attempt: number,
  jobId?: string,
  owed = 0,
): void {
  const done = `done in attempt ${attempt}${jobId === undefined ? '' : ` (${jobId})`}`;
  ctx.emit({
    type: 'job-skipped',
    id,
    reason: 'done',
    detail: owed === 0 ? done : `${done}; ${owed} result(s) not saved yet, downloading`,
    ...(owed === 0 ? {} : { owed }),
  });
}

/** Results of a done job's latest attempt that are not downloaded (0 when downloads are off). */
export function countOwed(ctx: ExecutionContext, state: JobState): number {
  if (!ctx.options.download) return 0;
  const last = state.attempts.at(-1);
  if (last?.outcome !== 'done') return 0;
  return last.resultUrls.filter((url) => !state.downloads.some((download) => download.url === url)).length;
}

/**
 * Whether an attempt sent with `payloadHash` was sent with the job's current payload. An attempt
 * journaled without its intent (never written by the runner: a hand-edited journal) has no payload
 * hash; it is taken as the current payload, so a job id it holds is followed rather than paid for again.
 */
export function isSamePayloadHash(payloadHash: string, job: PlannedJob): boolean {
  return matchesPlannedJob(payloadHash, job) || payloadHash === '';
}

/**
 * An intent without an answer that cannot be re-sent with its key: wait for a late answer of a runner
 * whose lease just ended, else it is uncertain: looked up, or re-sent when the run allows it.
 */
async function settleLostCreate(
  ctx: ExecutionContext,
  job: PlannedJob,
  last: AttemptState,
): Promise<JobOutcome | 'open'> {
  const now = ctx.clock.now();
  // Sent by a runner whose lease ended moments ago: its answer may still come (#31.9).
  if (last.idempotencyKey === undefined && (await ctx.awaitLateAnswer?.(job, last)) === true) return 'open';
  const reason =
    last.idempotencyKey === undefined
      ? 'the create of this job got no answer and its endpoint takes no idempotency key: a paid job may exist'
      : describeKeyWindowMiss(now, last.intentAt);
  await ctx.record({ type: 'uncertain', id: job.id, attempt: last.attempt, reason });
  const resend = ctx.options.onUncertain === 'resend';
  let shown = reason;
  if (!resend) {
    const search = await findLostJob(ctx, job, last);
    if (search.kind === 'found') {
      await adoptLostJob(ctx, job, last, search.jobId);
      return 'open';
    }
    shown = `${reason}; ${describeSearch(search)}`;
  }
  ctx.emit({
    type: 'job-uncertain',
    id: job.id,
    attempt: last.attempt,
    reason: shown,
    action: resend ? 'resent' : 'skipped',
  });
  if (!resend) return 'uncertain';
  const result = await createAttempt(ctx, job, last.attempt, true);
  return result === 'creating' ? 'uncertain' : result;
}

/** The lost create's job was found: journal its id like an answer, so it is followed from now on. */
async function adoptLostJob(
  ctx: ExecutionContext,
  job: PlannedJob,
  last: AttemptState,
  jobId: string,
): Promise<void> {
  await ctx.record({
    type: 'created',
    id: job.id,
    attempt: last.attempt,
    jobId,
    estimatedCredits: job.estimatedCredits,
  });
  // Paid in a create whose answer was lost, so counted by no budget until now (issue #24.9).
  ctx.budget.recount(0, job.estimatedCredits);
  ctx.emit({
    type: 'warning',
    id: job.id,
    message: `Job ${job.id}: the create whose answer was lost made job ${jobId} (found in the service's recent jobs); following it.`,
  });
}

/** Polls and applies the outcome. `undefined`: a new attempt is due (the loop creates it). */
async function followOpenAttempt(
  ctx: ExecutionContext,
  job: PlannedJob,
  last: AttemptState,
): Promise<JobOutcome | undefined> {
  const jobId = last.jobId ?? '';
  const result = await pollJob(ctx, job, last, jobId);
  switch (result.kind) {
    case 'aborted':
      return 'still-running';
    case 'still-running':
      ctx.emit({
        type: 'job-still-running',
        id: job.id,
        attempt: last.attempt,
        jobId,
        status: result.status,
      });
      return 'still-running';
    case 'lost':
      await ctx.record({ type: 'uncertain', id: job.id, attempt: last.attempt, reason: result.reason });
      ctx.emit({
        type: 'job-uncertain',
        id: job.id,
        attempt: last.attempt,
        reason: result.reason,
        action: 'skipped',
      });
      return 'uncertain';
    case 'complete':
      warnUnusablePolledCost(ctx, job, last, result.record);
      await ctx.record({
        type: 'completed',
        id: job.id,
        attempt: last.attempt,
        resultUrls: result.record.resultUrls,
        ...(result.record.creditCost === undefined ? {} : { creditCost: result.record.creditCost }),
        ...(result.record.chargeSource === undefined ? {} : { chargeSource: result.record.chargeSource }),
      });
      ctx.emit({
        type: 'job-completed',
        id: job.id,
        attempt: last.attempt,
        jobId,
        resultUrls: result.record.resultUrls,
        ...(result.record.creditCost === undefined ? {} : { creditCost: result.record.creditCost }),
      });
      return 'done';
    case 'failed':
      return handleFailure(ctx, job, last, result.record);
  }
}

/**
 * A completed job whose poll reports a cost the runner cannot count is warned about: it stays counted
 * at what its create was (a usable cost was counted at the poll that showed it, `countPolledCost`).
 */
function warnUnusablePolledCost(
  ctx: ExecutionContext,
  job: PlannedJob,
  last: AttemptState,
  record: JobRecord,
): void {
  if (record.unusableCreditCost === undefined) return;
  const live = liveAttempt(ctx, job.id, last.attempt) ?? last;
  warnUnusableCost(ctx, job.id, record, live.creditCost ?? live.estimatedCredits ?? 0);
}

async function handleFailure(
  ctx: ExecutionContext,
  job: PlannedJob,
  last: AttemptState,
  record: JobRecord,
): Promise<JobOutcome | undefined> {
  // Failed jobs are not charged: the service releases the locked credits (api-notes). What the job
  // was counted at may have been learned from a poll since `last` was read.
  const counted = liveAttempt(ctx, job.id, last.attempt) ?? last;
  ctx.budget.refund(counted.creditCost ?? counted.estimatedCredits ?? 0);
  const state = ctx.jobs.get(job.id);
  const decision = decideFailure(record.failureKind, countAttemptsInStreak(state, job), ctx.options.retry);
  const failureKind = record.failureKind ?? 'UNKNOWN';
  const error = record.error ?? `the service reported status "${record.status}"`;
  if (decision.action === 'defer') {
    const notBefore = ctx.clock.now() + ctx.options.retry.deferMs;
    await ctx.record({ type: 'deferred', id: job.id, attempt: last.attempt, failureKind, notBefore });
    ctx.emit({ type: 'job-deferred', id: job.id, attempt: last.attempt, failureKind, notBefore });
    return 'deferred';
  }
  const willRetry = decision.action === 'retry';
  await ctx.record({ type: 'failed', id: job.id, attempt: last.attempt, failureKind, error, willRetry });
  if (!willRetry) {
    ctx.emit({
      type: 'job-failed',
      id: job.id,
      attempt: last.attempt,
      failureKind,
      message: error,
      advice: decision.advice,
    });
    return 'failed';
  }
  const delayMs = computeRetryDelay(ctx.options.retry, last.attempt);
  ctx.emit({
    type: 'job-retry',
    id: job.id,
    attempt: last.attempt,
    nextAttempt: last.attempt + 1,
    failureKind,
    delayMs,
  });
  if (!(await sleepUnlessAborted(ctx, delayMs))) return 'pending';
  return undefined;
}

/**
 * Attempts of the current payload since its last final outcome: the count `maxAttempts` limits.
 * Refused creates (402, 429) made no job and do not count.
 */
export function countAttemptsInStreak(state: JobState | undefined, job: PlannedJob): number {
  let count = 0;
  for (let index = (state?.attempts.length ?? 0) - 1; index >= 0; index--) {
    const attempt = state?.attempts[index];
    if (attempt === undefined || !matchesPlannedJob(attempt.payloadHash, job)) break;
    if (attempt.outcome === 'create-refused') continue;
    if (
      count > 0 &&
      (attempt.outcome === 'failed' || attempt.outcome === 'done' || attempt.outcome === 'create-failed')
    )
      break;
    count++;
  }
  return count;
}
