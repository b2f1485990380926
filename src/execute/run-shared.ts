import type { PlannedJob } from '../manifest/planned-job.js';
import {
  type ClaimResult,
  type JobState,
  replayRecords,
  type RunCoordination,
  summarizeJob,
} from '../state/index.js';
import type { ExecutionContext } from './context.js';
import { errorMessageOf } from './error-info.js';
import type { JobOutcome } from './events.js';
import type { JobResult } from './job-result.js';

/**
 * Runs this process's share of a run that several processes apply at once (issue 17.4): `workers`
 * loops each claim the next job of the run's queue with one of the account's open-job slots (at
 * most the limiter's figure across every process), rebuild it from its records (another process
 * may have sent or finished it meanwhile: an open attempt is then followed, never created again),
 * run it with `follow`, and give the claim and slot up. A loop waits while other processes hold the
 * slots or unfinished jobs (one of them may die, and its jobs pass to this one), and ends when
 * nothing is left, when creating stopped, or when the lease is lost.
 */
export async function runSharedQueue(
  ctx: ExecutionContext,
  coordination: RunCoordination,
  input: {
    planned: readonly PlannedJob[];
    toFollow: readonly PlannedJob[];
    workers: number;
    /**
     * Runs the job (`slot` around its run: its open-job slot is given up when that ends, before its
     * results are downloaded; the claim once they are), then downloads them.
     */
    follow: (
      job: PlannedJob,
      slot: (task: () => Promise<JobOutcome>) => Promise<JobOutcome>,
    ) => Promise<JobOutcome>;
  },
): Promise<void> {
  const planned = new Map(input.planned.map((job) => [job.id, job]));
  try {
    await coordination.enqueue(input.toFollow.map((job) => job.id));
  } catch (error) {
    await stopOn(ctx, error);
    return;
  }
  // Once one worker finds nothing left, the waiting ones end too, without waiting for a notice.
  const nothingLeft = new AbortController();
  const wakeSignal = AbortSignal.any([ctx.downloadSignal, nothingLeft.signal]);
  const worker = async (): Promise<void> => {
    for (;;) {
      if (ctx.stopReason() !== undefined || ctx.hardSignal.aborted || nothingLeft.signal.aborted) return;
      let claim: ClaimResult;
      try {
        claim = await coordination.claim(ctx.limiter.limit.concurrency);
      } catch (error) {
        await stopOn(ctx, error);
        return;
      }
      for (const holder of claim.tookOver) {
        ctx.emit({
          type: 'warning',
          message: `Took over the expired lease of ${holder} on run "${ctx.options.runId}": its jobs pass to the runners still applying it; its open jobs are followed, not created again.`,
        });
      }
      if (claim.kind === 'none') {
        nothingLeft.abort();
        return;
      }
      if (claim.kind === 'wait') {
        await coordination.waitForChange(wakeSignal);
        continue;
      }
      await runClaimed(claim);
    }
  };
  const runClaimed = async (claim: Extract<ClaimResult, { kind: 'claimed' }>): Promise<void> => {
    const job = planned.get(claim.id);
    let given: Promise<void> | undefined;
    const giveUp = (finished: boolean) =>
      (given ??= coordination.finish(claim.id, finished).catch(() => undefined));
    try {
      if (job === undefined) return;
      try {
        rebuildJob(ctx.jobs, claim.id, claim.records, ctx.options.runId);
      } catch (error) {
        // A record no runner wrote (#31.10): refused as a replay refuses it; the job goes back to the
        // queue untouched, and this process claims nothing more.
        await giveUp(false);
        await stopOn(ctx, error);
        return;
      }
      if (claim.from !== undefined) {
        ctx.emit({
          type: 'warning',
          id: claim.id,
          message: `Job ${claim.id} passed from ${claim.from} to ${coordination.machine}; it goes on from its records.`,
        });
      }
      await input.follow(job, async (task) => {
        try {
          const outcome = await task();
          await keepSlotOfLostAnswer(ctx, coordination, claim.id, outcome);
          // Not created because creating stopped here: another process may still create it.
          if (outcome === 'pending') await giveUp(false);
          return outcome;
        } finally {
          // The slot goes now; the claim stays until the results are downloaded.
          if (given === undefined) await coordination.releaseSlot(claim.id).catch(() => undefined);
        }
      });
    } finally {
      await giveUp(true);
    }
  };
  // Twice the slots: a worker downloading the results of a job whose slot it gave up is not
  // claiming, and another one takes the slot meanwhile (as the in-process limit frees it, too).
  await Promise.all(Array.from({ length: Math.max(1, 2 * input.workers) }, worker));
}

/**
 * The outcome, for this apply's summary, of every planned job another process ran: each as the
 * run's records have it now. They also replace this process's stale copies in `ctx.jobs`, so the
 * reports written after the run show the whole run.
 */
export async function settleOthersJobs(
  ctx: ExecutionContext,
  coordination: RunCoordination,
  planned: readonly PlannedJob[],
  results: ReadonlyMap<string, JobResult>,
): Promise<Map<string, JobResult>> {
  const settled = new Map<string, JobResult>();
  if (ctx.lockLost() !== undefined) return settled;
  let jobs: Map<string, JobState>;
  try {
    jobs = await coordination.readOthersJobs();
  } catch (error) {
    ctx.emit({
      type: 'warning',
      message: `Could not read the other runners' jobs: ${errorMessageOf(error)}`,
    });
    return settled;
  }
  for (const job of planned) {
    if (results.has(job.id)) continue;
    const state = jobs.get(job.id);
    if (state === undefined) continue;
    ctx.jobs.set(job.id, state);
    const summary = summarizeJob(state);
    const outcome: JobOutcome = summary.status === 'open' ? 'still-running' : summary.status;
    const owed = outcome === 'done' && ctx.options.download && !summary.complete;
    settled.set(job.id, {
      outcome: owed ? 'downloading' : outcome,
      files: summary.files,
      downloadFailures: 0,
    });
  }
  return settled;
}

/**
 * A create whose answer was lost may have made a job that is open on the service (issue #31.6): its
 * open-job slot is kept, for every process of the run, until the job must be over (its deadline,
 * counted from the create's intent), so no one creates another in its place meanwhile.
 */
async function keepSlotOfLostAnswer(
  ctx: ExecutionContext,
  coordination: RunCoordination,
  id: string,
  outcome: JobOutcome,
): Promise<void> {
  if (outcome !== 'uncertain' && outcome !== 'creating') return;
  const last = ctx.jobs.get(id)?.attempts.at(-1);
  if (last === undefined || last.jobId !== undefined) return;
  const ms = last.intentAt + ctx.options.jobDeadlineMs - ctx.clock.now();
  if (ms > 0) await coordination.keepSlot(id, ms).catch(() => undefined);
}

/**
 * Replaces a job's state with the one its records give, checked as a replay checks them: a record
 * that does not fit is a STATE_CORRUPT error, and the job's state is left as it was.
 */
function rebuildJob(
  jobs: Map<string, JobState>,
  id: string,
  records: readonly string[],
  runId: string,
): void {
  const rebuilt = replayRecords(records, `The records of job ${id} of run "${runId}"`).get(id);
  if (rebuilt === undefined) jobs.delete(id);
  else jobs.set(id, rebuilt);
}

/** A lost lease is the executor's to report (STATE_LOCKED); any other failure stops creating. */
async function stopOn(ctx: ExecutionContext, error: unknown): Promise<void> {
  if (!(await ctx.holdsLock())) return;
  ctx.stopCreating('error', `No new jobs are claimed: ${errorMessageOf(error)}`);
}
