import { snapshotPayload } from '../plan/payload-diff.js';
import { getJobKind } from '../kinds/index.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import { deriveIdempotencyKey } from '../state/index.js';
import type { ExecutionContext } from './context.js';
import { earlierSendMayHaveActed, errorCodeOf, errorMessageOf } from './error-info.js';
import { ResendWithheldError } from '../service/errors.js';
import { countReportedCost, warnRaisedCost } from './counted-cost.js';
import { locateInKeyWindow } from '../plan/key-window.js';
import { forgetUploads, uploadReferences } from './upload-references.js';

/**
 * Where a job stands after a create: `open` (has a jobId), `pending` (nothing was created; may be
 * created later), `failed` (refused for good), `creating` (answer lost, same key may be re-sent),
 * `uncertain` (answer lost, no key: cannot be safely re-sent).
 */
export type CreateResult = 'open' | 'pending' | 'failed' | 'creating' | 'uncertain';

/**
 * Creates attempt `attempt` of a job: uploads local files, journals the intent (fsynced) BEFORE the
 * POST, sends it (with the deterministic key when the endpoint honours one) and journals the answer.
 * `resent` marks a re-send of an attempt whose answer was lost (same key).
 */
export async function createAttempt(
  ctx: ExecutionContext,
  job: PlannedJob,
  attempt: number,
  resent: boolean,
): Promise<CreateResult> {
  if (ctx.stopReason() !== undefined) return resent ? 'creating' : 'pending';
  // Under a cap, a model whose price no answer has shown yet is sent one create at a time (budget.ts).
  await ctx.budget.admit(job.model, job.id, () => ctx.stopReason() !== undefined);
  let result: CreateResult = resent ? 'creating' : 'pending';
  try {
    result = await sendAttempt(ctx, job, attempt, resent);
    return result;
  } finally {
    // An open job whose answer showed no price keeps the model's next creates waiting for its poll.
    if (result !== 'open') await ctx.budget.endProbe(job.id);
  }
}

async function sendAttempt(
  ctx: ExecutionContext,
  job: PlannedJob,
  attempt: number,
  resent: boolean,
): Promise<CreateResult> {
  const blocked: CreateResult = resent ? 'creating' : 'pending';
  if (ctx.stopReason() !== undefined) return blocked;
  const adapter = getJobKind(job.kind);
  // Uploads first: they are free, and may take long, so they are not made while the other machines
  // of a shared run wait for this one's reservation below.
  let params: Record<string, unknown>;
  try {
    params = await uploadReferences(ctx, job.id, job.params);
  } catch (error) {
    if (errorCodeOf(error) === 'AUTHENTICATION') ctx.abortAll(errorMessageOf(error));
    else if (!ctx.hardSignal.aborted) {
      ctx.emit({
        type: 'job-failed',
        id: job.id,
        attempt,
        code: errorCodeOf(error) ?? 'UPLOAD',
        message: `Uploading a local file failed: ${errorMessageOf(error)}`,
      });
    }
    return ctx.hardSignal.aborted ? blocked : 'failed';
  }
  // Before every create, not once per run: a runner paused past its lease may have lost the state (#24.1).
  // The intent written below is fenced by the lease too, so a lease renewed moments ago is enough.
  if (!(await ctx.holdsLock({ fencedWriteFollows: true }))) return blocked;
  const body = adapter.buildBody({ model: job.model, prompt: job.prompt, params });
  const idempotencyKey = adapter.idempotent
    ? deriveIdempotencyKey({
        pipeline: ctx.pipeline,
        runId: ctx.options.runId,
        jobId: job.id,
        payloadHash: job.payloadHash,
        attempt,
      })
    : undefined;
  const shared = ctx.withOthersSpending;
  const reserveAndAnnounce = async (): Promise<number | undefined> => {
    const wanted = ctx.budget.estimateFor(job.model, job.estimatedCredits);
    if (!ctx.budget.tryReserve(wanted)) {
      const cap = ctx.options.maxCredits ?? 0;
      ctx.stopCreating(
        'budget',
        `Job ${job.id} (about ${wanted} credits) would take spending past the cap of ${cap} credits (${ctx.budget.spentTotal} spent); no new jobs are created.`,
      );
      return undefined;
    }
    try {
      await ctx.record({
        type: 'intent',
        id: job.id,
        attempt,
        payloadHash: job.payloadHash,
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        payload: snapshotPayload(job),
        ...rejectionOf(ctx, job.id, attempt),
        // What the other machines count against the cap until the answer's cost replaces it.
        ...(shared === undefined ? {} : { estimatedCredits: wanted }),
      });
    } catch (error) {
      ctx.budget.release(wanted);
      throw error;
    }
    return wanted;
  };
  let reservation: number | undefined;
  if (shared === undefined) reservation = await reserveAndAnnounce();
  else {
    // Several machines under one cap: the check and the intent that announces the reservation are
    // made while no other machine makes its own, so the cap's last credits are taken once.
    let entered = false;
    try {
      reservation = await shared(() => {
        entered = true;
        return reserveAndAnnounce();
      });
    } catch (error) {
      // An intent that could not be written stops creating where it is written (`ctx.record`).
      if (entered) throw error;
      // The cap cannot be checked: nothing more is created.
      ctx.stopCreating('error', `No new jobs are created: ${errorMessageOf(error)}`);
      return blocked;
    }
  }
  if (reservation === undefined) return blocked;
  const estimate = reservation;
  let reserved = true;
  const release = () => {
    if (reserved) ctx.budget.release(estimate);
    reserved = false;
  };
  const stopped = ctx.stopReason();
  // A budget stop concerns the jobs that did not fit: this one's credits are already reserved.
  if (stopped !== undefined && ctx.stoppedBeyondBudget() && !resent) {
    // Stopped while the intent was being written: say so, or a later run would take it as sent.
    release();
    await ctx.record({
      type: 'create-failed',
      id: job.id,
      attempt,
      code: 'NOT_SENT',
      message: `not sent: ${stopped}`,
      final: false,
    });
    return 'pending';
  }
  // A re-send inside the key's window: the client must not stretch it past the window of the first send.
  const intentAt = resent
    ? ctx.jobs.get(job.id)?.attempts.find((a) => a.attempt === attempt)?.intentAt
    : undefined;
  const earlierSendAt =
    intentAt !== undefined &&
    locateInKeyWindow(ctx.clock.now(), intentAt, ctx.options.idempotencyWindowMs) === 'inside'
      ? intentAt
      : undefined;
  try {
    const answer = await ctx.client.createJob(
      {
        endpoint: adapter,
        body,
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        ...(earlierSendAt === undefined ? {} : { earlierSendAt }),
      },
      // Not aborted when the lease is lost: the answer is still stored, late (#31.9). But a re-send
      // after a wait (a 429's Retry-After) goes out only while the lease holds: the runner that took the
      // run over may have re-sent the create itself meanwhile.
      { signal: ctx.createSignal, beforeResend: () => ctx.holdsLock() },
    );
    const { answer: creation, raisedFrom } = countReportedCost(answer, job.estimatedCredits);
    reserved = false;
    ctx.budget.settle(estimate, creation.creditCost ?? estimate);
    if (creation.unusableCreditCost !== undefined) warnUnusableCost(ctx, job.id, creation, estimate);
    if (raisedFrom !== undefined) warnRaisedCost(ctx, job, creation.jobId, raisedFrom);
    await ctx.record({
      type: 'created',
      id: job.id,
      attempt,
      jobId: creation.jobId,
      ...(creation.creditCost === undefined
        ? { estimatedCredits: estimate }
        : { creditCost: creation.creditCost }),
      ...(creation.chargeSource === undefined ? {} : { chargeSource: creation.chargeSource }),
      ...(creation.queuePosition === undefined ? {} : { queuePosition: creation.queuePosition }),
    });
    if (creation.creditCost !== undefined) {
      // A covered job's 0 says nothing of the model's credit price: the next create may go, unpriced.
      if (creation.chargeSource === 'Subscription') await ctx.budget.endProbe(job.id);
      else await ctx.budget.learnPrice(job.model, job.estimatedCredits, creation.creditCost);
    }
    const change = ctx.limiter.follow(creation.concurrency);
    if (change !== undefined) {
      ctx.emit({
        type: 'concurrency-changed',
        ...change,
        reason: creation.capReason ?? `the service reported concurrency ${creation.concurrency}`,
      });
    }
    ctx.emit({
      type: 'job-created',
      id: job.id,
      attempt,
      jobId: creation.jobId,
      resent,
      ...(creation.creditCost === undefined ? {} : { creditCost: creation.creditCost }),
      ...(creation.chargeSource === undefined ? {} : { chargeSource: creation.chargeSource }),
      ...(creation.queuePosition === undefined ? {} : { queuePosition: creation.queuePosition }),
    });
    return 'open';
  } catch (error) {
    release();
    return handleCreateError(ctx, job, { attempt, keyed: idempotencyKey !== undefined, resent }, error);
  }
}

/** A reported cost the runner cannot count (negative, not a number): the estimate stands in, said aloud. */
export function warnUnusableCost(
  ctx: ExecutionContext,
  id: string,
  answer: { jobId: string; unusableCreditCost?: string },
  estimate: number,
): void {
  ctx.emit({
    type: 'warning',
    id,
    message: `The service reported creditCost ${answer.unusableCreditCost ?? '?'} for job ${id} (${answer.jobId}), which is not a credit count; it is counted at its estimate of ${estimate} credits.`,
  });
}

/** Spec 4.3 / 7: which failures prove that nothing was created. */
async function handleCreateError(
  ctx: ExecutionContext,
  job: PlannedJob,
  send: { attempt: number; keyed: boolean; resent: boolean },
  error: unknown,
): Promise<CreateResult> {
  const { attempt, keyed, resent } = send;
  const code = errorCodeOf(error);
  const message = errorMessageOf(error);
  // A refusal proves that THIS request created nothing. For a re-send, or after the client's retry
  // loop sent it once without a usable answer (a 5xx or a timeout, then a 429), an earlier send of the
  // same attempt may still have made a job: the attempt stays unanswered, never "nothing created".
  const earlierSend = resent || earlierSendMayHaveActed(error);
  const refuse = async (final: boolean, result: CreateResult): Promise<CreateResult> => {
    if (earlierSend && !final) {
      return unanswered(ctx, job, attempt, keyed, `a re-send was refused (${code ?? 'error'}: ${message})`);
    }
    await ctx.record({ type: 'create-failed', id: job.id, attempt, code: code ?? 'UNKNOWN', message, final });
    return result;
  };
  if (error instanceof ResendWithheldError) return withheldResend(ctx, job, send, error);
  if (ctx.hardSignal.aborted && code !== 'AUTHENTICATION') {
    // Aborted mid-request: the create may have arrived.
    return unanswered(ctx, job, attempt, keyed, 'the request was aborted before an answer came');
  }
  switch (code) {
    case 'SERVICE_VALIDATION':
    case 'NOT_FOUND': {
      // The refusal may be about an uploaded reference the service no longer serves: upload it afresh.
      const reuploads = await forgetUploads(ctx, job.params);
      ctx.emit({
        type: 'job-failed',
        id: job.id,
        attempt,
        code,
        message,
        advice: `Fix the job in the manifest; nothing was created or charged.${reuploads ? ' Its local reference files will be uploaded again when it is re-sent (--retry-failed).' : ''}`,
      });
      return refuse(true, 'failed');
    }
    case 'INSUFFICIENT_CREDITS':
      ctx.stopCreating(
        'credits',
        `The service refused job ${job.id} for lack of credits (HTTP 402); open jobs finish, the rest stay pending.`,
      );
      return refuse(false, 'pending');
    case 'AUTHENTICATION':
      ctx.abortAll(`The service rejected the API key (${message}); stopping everything.`);
      return refuse(false, 'pending');
    case 'RATE_LIMITED':
      // A 429 is an answer: this request created nothing.
      ctx.stopCreating(
        'service',
        `The service kept answering "too many requests" for job ${job.id}; no new jobs are created.`,
      );
      return refuse(false, 'pending');
    default:
      ctx.stopCreating(
        'service',
        `Creating job ${job.id} failed after retries (${code ?? 'error'}: ${message}); no new jobs are created.`,
      );
      return unanswered(ctx, job, attempt, keyed, `${code ?? 'error'}: ${message}`);
  }
}

/**
 * The lease ended while the client waited to re-send the create, so it was not re-sent. Only refusals
 * came before (a 429): nothing was made, which is kept as a late record for the runner that holds the
 * run now, so it creates the job without waiting. An earlier send that may have made a job is left to
 * that runner, which waits for a late answer and then calls it uncertain, as for any lost answer.
 */
async function withheldResend(
  ctx: ExecutionContext,
  job: PlannedJob,
  send: { attempt: number; resent: boolean },
  error: ResendWithheldError,
): Promise<CreateResult> {
  if (send.resent || error.earlierSendMayHaveActed) return 'creating';
  try {
    await ctx.record({
      type: 'create-failed',
      id: job.id,
      attempt: send.attempt,
      code: 'NOT_SENT',
      message: `not sent again: ${error.message}`,
      final: false,
    });
  } catch (recordError) {
    // Fenced out, as expected: `ctx.record` kept the refusal as a late record and said so.
    if (ctx.lockLost() === undefined) throw recordError;
  }
  return 'pending';
}

/** The answer was lost. With a key the attempt stays `creating` (resumable); without, it is uncertain. */
async function unanswered(
  ctx: ExecutionContext,
  job: PlannedJob,
  attempt: number,
  keyed: boolean,
  reason: string,
): Promise<CreateResult> {
  if (keyed) {
    ctx.emit({
      type: 'warning',
      id: job.id,
      message: `No answer to the create of job ${job.id} (${reason}); a re-run re-sends the same idempotency key within the window.`,
    });
    return 'creating';
  }
  const why = `no answer to the create (${reason}) and this endpoint takes no idempotency key: a paid job may exist`;
  await ctx.record({ type: 'uncertain', id: job.id, attempt, reason: why });
  ctx.emit({ type: 'job-uncertain', id: job.id, attempt, reason: why, action: 'skipped' });
  return 'uncertain';
}

/** The review rejection attempt `attempt` replaces (`--replace-from`), for its intent record. */
function rejectionOf(
  ctx: ExecutionContext,
  id: string,
  attempt: number,
): { rejectedAttempt?: number; rejectionNote?: string } {
  const rejection = ctx.options.rejections.get(id);
  if (rejection === undefined || rejection.attempt !== attempt - 1) return {};
  return {
    rejectedAttempt: rejection.attempt,
    ...(rejection.note === undefined ? {} : { rejectionNote: rejection.note }),
  };
}
