import { getJobKind } from '../kinds/index.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import type { JobRecord } from '../service/types.js';
import { type AttemptState, MAX_RESULTS_PER_JOB } from '../state/index.js';
import type { ExecutionContext } from './context.js';
import { countReportedCost, warnRaisedCost } from './counted-cost.js';
import { countPolledCost } from './polled-cost.js';
import { errorCodeOf, errorMessageOf } from './error-info.js';
import {
  computePollDelay,
  estimateRemainingMs,
  nextPollDelay,
  type ProgressSample,
} from './poll-schedule.js';

export type PollResult =
  | { kind: 'complete'; record: JobRecord }
  | { kind: 'failed'; record: JobRecord }
  | { kind: 'still-running'; status: string }
  | { kind: 'aborted' }
  | { kind: 'lost'; reason: string };

/**
 * Polls an open attempt until it completes, fails, the per-job deadline passes (still running: the
 * jobId is kept, a later apply resumes it) or everything is aborted. The first poll waits for the
 * kind's `firstPollAfterMs` counted from the create; status changes are journaled.
 */
export async function pollJob(
  ctx: ExecutionContext,
  job: PlannedJob,
  attempt: AttemptState,
  jobId: string,
): Promise<PollResult> {
  const { clock, options } = ctx;
  const firstPollAfter = options.firstPollAfterMs ?? getJobKind(job.kind).firstPollAfterMs;
  const startedAt = clock.now();
  const deadline = startedAt + options.jobDeadlineMs;
  let lastStatus = attempt.status;
  let lastProgress = attempt.progress;
  let warnedUnknown = false;
  let firstSample: ProgressSample | undefined;
  let delay = Math.max(0, (attempt.createdAt ?? startedAt) + firstPollAfter - startedAt);
  for (;;) {
    if (!(await sleepUnlessAborted(ctx, Math.min(delay, Math.max(0, deadline - clock.now())))))
      return { kind: 'aborted' };
    if (clock.now() >= deadline && lastStatus !== undefined)
      return { kind: 'still-running', status: lastStatus };
    let record: JobRecord;
    // The job deadline bounds the poll request too: a drip-fed answer must not hold the run past it.
    const pollDeadline = AbortSignal.timeout(Math.max(1, deadline - clock.now()));
    try {
      record = await ctx.client.getJob(jobId, { signal: AbortSignal.any([ctx.hardSignal, pollDeadline]) });
    } catch (error) {
      if (ctx.hardSignal.aborted) return { kind: 'aborted' };
      if (pollDeadline.aborted) return { kind: 'still-running', status: lastStatus ?? 'unknown' };
      const code = errorCodeOf(error);
      if (code === 'AUTHENTICATION') {
        ctx.abortAll(
          `The service rejected the API key while polling job ${job.id}: ${errorMessageOf(error)}`,
        );
        return { kind: 'aborted' };
      }
      if (code === 'NOT_FOUND')
        return { kind: 'lost', reason: `the service does not know job ${jobId} (HTTP 404)` };
      ctx.emit({
        type: 'warning',
        id: job.id,
        message: `Polling job ${job.id} (${jobId}) failed: ${errorMessageOf(error)}; polling continues.`,
      });
      if (clock.now() >= deadline) return { kind: 'still-running', status: lastStatus ?? 'unknown' };
      delay = computePollDelay(options.pollIntervalMs, ctx.random);
      continue;
    }
    const counted = countReportedCost(record, job.estimatedCredits);
    record = counted.answer;
    const cost = await countPolledCost(ctx, job, attempt.attempt, record);
    // Said once: when the raised figure is first counted (a create answer that said it was warned of).
    if (counted.raisedFrom !== undefined && cost.creditCost !== undefined)
      warnRaisedCost(ctx, job, jobId, counted.raisedFrom);
    if (record.status !== lastStatus || cost.creditCost !== undefined) {
      await ctx.record({
        type: 'status',
        id: job.id,
        attempt: attempt.attempt,
        status: record.status,
        ...(record.progress === undefined ? {} : { progress: record.progress }),
        ...cost,
      });
    }
    if (record.status !== lastStatus || record.progress !== lastProgress) {
      ctx.emit({
        type: 'job-status',
        id: job.id,
        attempt: attempt.attempt,
        jobId,
        status: record.status,
        phase: record.phase,
        ...(record.progress === undefined ? {} : { progress: record.progress }),
      });
    }
    lastStatus = record.status;
    lastProgress = record.progress;
    if (record.phase === 'complete' && record.resultUrls.length === 0)
      return { kind: 'lost', reason: describeMissingResult(jobId, record) };
    if (record.phase === 'complete' && record.resultUrls.length > MAX_RESULTS_PER_JOB)
      return { kind: 'lost', reason: describeTooManyResults(jobId, record) };
    if (record.phase === 'complete') return { kind: 'complete', record };
    if (record.phase === 'failed') return { kind: 'failed', record };
    if (record.phase === 'unknown' && !warnedUnknown) {
      warnedUnknown = true;
      ctx.emit({
        type: 'warning',
        id: job.id,
        message: `Job ${job.id} (${jobId}) reports an unknown status "${record.status}"; polling continues until it completes, fails or the deadline passes.`,
      });
    }
    if (clock.now() >= deadline) return { kind: 'still-running', status: record.status };
    let remainingMs: number | undefined;
    if (record.phase === 'running' && record.progress !== undefined) {
      const sample = { at: clock.now(), progress: record.progress };
      firstSample ??= sample;
      remainingMs = estimateRemainingMs(firstSample, sample);
    }
    delay = nextPollDelay(options.pollIntervalMs, ctx.random, remainingMs);
  }
}

/** Sleeps unless everything was aborted; false when it was (before or during the wait). */
export async function sleepUnlessAborted(ctx: ExecutionContext, ms: number): Promise<boolean> {
  if (ctx.hardSignal.aborted) return false;
  if (ms <= 0) return true;
  try {
    await ctx.clock.sleep(ms, ctx.hardSignal);
    return true;
  } catch {
    return false;
  }
}

/** More results than one job may have: flagged with its job id kept, none journaled (#24.9). */
function describeTooManyResults(jobId: string, record: JobRecord): string {
  return (
    `the service reports job ${jobId} "${record.status}" with ${record.resultUrls.length} result URLs, more than the ` +
    `${MAX_RESULTS_PER_JOB} the runner keeps for one job; none was recorded or downloaded. The job id is kept ` +
    `and the job is never created again: fetch its results from the service within 7 days.`
  );
}

/**
 * A job reported complete without a result the runner recognises is never "done (0 results)": it is
 * uncertain, its job id kept, with the answer's fields named so it can be recovered (api-notes).
 */
function describeMissingResult(jobId: string, record: JobRecord): string {
  return (
    `the service reports job ${jobId} "${record.status}" but names no result the runner recognises ` +
    `(looked in resultImages, resultUrls, resultUrl, resultImage); the answer had: ${record.unrecognizedResult ?? '(nothing)'}. ` +
    'The job id is kept: a later version of the runner may recover its result.'
  );
}
