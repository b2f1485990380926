import pLimit from 'p-limit';
import { nextStep, type StepPolicy } from '../plan/next-step.js';
import type { Plan } from '../plan/types.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import { createFolderResultsStore } from '../results/backends/folder/folder-results-store.js';
import { createResultFiles, type ResultFiles } from '../results/result-files.js';
import {
  type JobState,
  type JobSummary,
  judgeRun,
  type RunCoordination,
  sumBudgetedCredits,
  summarizeJob,
} from '../state/index.js';
import { createBudget, type SharedPrices } from './budget.js';
import { createJobLimiter } from './concurrency.js';
import { readStartConcurrency } from './start-concurrency.js';
import { createExecutionContext, type ExecutionContext } from './context.js';
import { downloadResultsSafely, fetchWhatThisMachineLacks, type FetchedEarly } from './fetch-lacking.js';
import { fetchOthersResultsMeanwhile } from './fetch-meanwhile.js';
import { errorMessageOf } from './error-info.js';
import type { ExecutionSummary, ExitReason, JobOutcome, StopReason } from './events.js';
import { resolveExecuteOptions, type ExecuteDeps, type ExecuteOptions, type ExecuteRun } from './options.js';
import { countOwed, emitDoneSkipped, isSamePayloadHash, runJob } from './run-job.js';
import { createLateAnswerWait, lateAnswersOf } from './late-answer.js';
import { type JobSlot, schedulerFor } from './job-scheduler.js';
import type { JobResult } from './job-result.js';

/**
 * Runs a plan: at most 4 jobs open at once, every step journaled before it matters, so a crash or
 * Ctrl-C at any point leaves a state that the next call resumes without paying twice.
 * Aborting `deps.signal` stops creating; open jobs are still polled to the end.
 */
export async function executePlan(
  plan: Plan,
  deps: ExecuteDeps,
  options: ExecuteOptions,
): Promise<ExecutionSummary> {
  const resolved = resolveExecuteOptions(options, plan.budget);
  const { run } = deps;
  // Copy-on-write: a deep copy of every job up front doubled the memory of a resumed 100,000-job run.
  const jobs = new Map<string, JobState>(run.jobs);
  let alreadySpent = 0;
  for (const job of jobs.values()) alreadySpent += sumBudgetedCredits(job);
  const start = await readStartConcurrency(deps.client, resolved.concurrency, deps.signal);
  const limiter = createJobLimiter(start.concurrency);
  const ctx = createExecutionContext({
    pipeline: plan.pipeline,
    options: resolved,
    client: deps.client,
    clock: deps.clock,
    random: deps.random ?? Math.random,
    uploadCache: run.uploadCache,
    ...(deps.readOtherRuns === undefined ? {} : { readOtherRuns: deps.readOtherRuns }),
    ...(deps.afterDownload === undefined ? {} : { afterDownload: deps.afterDownload }),
    ...resultsOf(deps.results, resolved),
    ...(deps.machine === undefined ? {} : { machine: deps.machine }),
    // Under a cap, the machines of a shared run share what they learn of each model's price.
    budget: createBudget(
      resolved.maxCredits,
      alreadySpent,
      run.coordination !== undefined && resolved.maxCredits !== undefined
        ? sharedPricesOf(run.coordination, deps.signal)
        : undefined,
    ),
    limiter,
    jobs,
    original: run.jobs,
    journal: run.journal,
    ...(run.lock === undefined ? {} : { lock: run.lock }),
    ...(run.snapshots === undefined ? {} : { snapshots: run.snapshots }),
    onEvent: (event) => deps.onEvent(event),
    interruptSignal: deps.signal,
    // Under a cap, a shared run's other machines spend from the same cap.
    ...(run.coordination !== undefined && resolved.maxCredits !== undefined
      ? { withSpendingLock: run.coordination.withSpendingLock.bind(run.coordination) }
      : {}),
    // Another runner's create may be in flight when its lease ends: its answer is waited for (#31.9).
    ...lateAnswerOf(run, resolved.runId, options.lateAnswerWindowMs),
  });
  const onAbort = () =>
    ctx.stopCreating(
      'interrupted',
      'Interrupted: no new jobs are created; open jobs are followed until they finish.',
    );
  if (start.lowered) {
    ctx.emit({
      type: 'concurrency-changed',
      from: resolved.concurrency,
      to: start.concurrency,
      reason: start.reason,
    });
  } else if (start.note !== undefined) ctx.emit({ type: 'warning', message: start.note });
  if (deps.signal.aborted) onAbort();
  else deps.signal.addEventListener('abort', onAbort, { once: true });

  await ctx.record({
    type: 'run',
    runId: resolved.runId,
    pipeline: plan.pipeline,
    pid: process.pid,
    manifestFile: plan.manifestFile,
    ...(resolved.outputDir === undefined ? {} : { outputDir: resolved.outputDir }),
    ...(resolved.host === undefined ? {} : { host: resolved.host }),
    plannedJobs: resolved.runJobs ?? plan.jobs.length,
    ...(resolved.download ? {} : { download: false }),
    ...(resolved.account === undefined ? {} : { account: resolved.account }),
    ...(resolved.project === undefined ? {} : { project: resolved.project }),
  });
  if (resolved.download) await sweepUnfinished(ctx);
  const downloadLimit = pLimit(4);
  const results = new Map<string, JobResult>();
  /** Jobs whose results this process downloaded (or checked) in this apply: not checked again. */
  const checked = new Set<string>();
  /** Jobs this process follows (claimed, on a shared run): their results are its own to download. */
  const own = new Set<string>();
  // Jobs done in an earlier apply with every result on record need no slot, no promise and no folder
  // check: settled here, so resuming a large run costs memory and time only for what is left to do.
  const toFollow: PlannedJob[] = [];
  for (const job of orderForResume(plan.jobs, jobs)) {
    const state = jobs.get(job.id);
    const summary = state === undefined ? undefined : summarizeJob(state);
    const settled = settledDoneFiles(job, summary, resolved);
    if (summary === undefined || settled === undefined) {
      toFollow.push(job);
      continue;
    }
    if (summary.lastAttempt !== undefined)
      emitDoneSkipped(ctx, job.id, summary.lastAttempt, summary.lastJobId);
    results.set(job.id, { outcome: 'done', files: settled, downloadFailures: 0 });
  }
  const follow = async (job: PlannedJob, slot: JobSlot) => {
    own.add(job.id);
    const outcome = resolved.downloadOnly
      ? reportWithoutRunning(ctx, job)
      : await slot(() => runJobSafely(ctx, job));
    const downloads =
      outcome === 'done' && resolved.download
        ? await downloadLimit(() => {
            checked.add(job.id);
            // verify: a result another machine saved before it died (a job it finished, then lost
            // the lease of, mid-downloads) is in THAT machine's folder: checked here like the rest, as
            // this job is not checked again before the run is reported.
            return downloadResultsSafely(ctx, job, { verify: true });
          })
        : { files: jobs.get(job.id)?.downloads.map((download) => download.file) ?? [], failures: 0 };
    // Paid, but a result is not saved: not done for the user, and never counted as done (#24.3).
    const shown = outcome === 'done' && downloads.failures > 0 ? 'downloading' : outcome;
    results.set(job.id, {
      outcome: shown,
      files: downloads.files,
      downloadFailures: downloads.failures,
      ...(downloads.error === undefined ? {} : { downloadError: downloads.error }),
    });
    return shown;
  };
  // One process on the run, or a share of it with others: the run's state says which.
  const scheduler = schedulerFor(run);
  // On a shared run, the results the others save are fetched meanwhile, not all after this one's last job.
  const meanwhile =
    run.coordination === undefined
      ? undefined
      : fetchOthersResultsMeanwhile(ctx, run.coordination, {
          planned: plan.jobs,
          isOwn: (id) => own.has(id),
          ownWaiting: () => downloadLimit.pendingCount > 0,
        });
  let early: ReadonlyMap<string, FetchedEarly> | undefined;
  try {
    try {
      await scheduler.followJobs(ctx, { planned: plan.jobs, toFollow, workers: start.concurrency, follow });
    } finally {
      early = await meanwhile?.stop();
    }
    for (const [id, outcome] of await scheduler.othersResults(ctx, plan.jobs, results)) {
      results.set(id, outcome);
    }
  } finally {
    deps.signal.removeEventListener('abort', onAbort);
  }
  // Another runner holds the state now: nothing more is written to it, not even a snapshot.
  const lost = ctx.lockLost();
  if (lost !== undefined) throw lost;
  if (resolved.download && !deps.signal.aborted)
    await fetchWhatThisMachineLacks(ctx, plan.jobs, results, checked, early);
  if (deps.signal.aborted) await ctx.record({ type: 'interrupted', reason: 'signal' });
  for (const message of (await run.snapshots?.finish(jobs)) ?? []) ctx.emit({ type: 'warning', message });
  return summarize(plan, ctx, results);
}

/** The price methods of a shared run's coordination, as the budget takes them. */
function sharedPricesOf(coordination: RunCoordination, signal: AbortSignal): SharedPrices {
  return {
    probeModel: (model) => coordination.probeModel(model),
    shareModelPrice: (model, over) => coordination.shareModelPrice(model, over),
    endModelProbe: (model) => coordination.endModelProbe(model),
    waitForChange: () => coordination.waitForChange(signal),
  };
}

/** What the rule needs besides a `--replace` to settle a done job: nothing else is read for it. */
const settledPolicy: StepPolicy = {
  replaceDue: false,
  retryFailed: false,
  resendUncertain: false,
  idempotent: false,
  keyWindowMs: 0,
};

/**
 * The files of a job that an earlier apply finished (same payload, not `--replace`d, nothing of a
 * replaced attempt to move aside, every result downloaded or downloads off), or `undefined` when the
 * job still needs `runJob` or `downloadResults`. Its files are what `downloadResults` would return.
 * Decided from the job's summary: a job still in the state snapshot is passed by without reading it.
 */
function settledDoneFiles(
  job: PlannedJob,
  summary: JobSummary | undefined,
  options: ReturnType<typeof resolveExecuteOptions>,
): string[] | undefined {
  if (summary === undefined || summary.lastAttempt === undefined || summary.status !== 'done') {
    return undefined;
  }
  const samePayload = isSamePayloadHash(summary.lastPayloadHash ?? summary.payloadHash, job);
  // The rule apply's jobs follow (#34.2), read from the summary: a done job's attempts are not needed.
  const view = { status: summary.status, last: () => undefined };
  const policy = { ...settledPolicy, replaceDue: options.replace.has(job.id) };
  if (nextStep(view, samePayload, policy, 0).kind !== 'skip') return undefined;
  if (!options.download) return summary.downloadFiles ?? summary.files;
  if (options.outputDir === undefined || !summary.complete) return undefined;
  return summary.files;
}

/**
 * Removes what a killed download left in the store (a folder's temporaries, a bucket's unfinished
 * uploads) once, under the run's lease and before this process's first download: a temporary made by
 * one of its own downloads in progress is never among them. A failure costs nothing but space: a warning.
 */
async function sweepUnfinished(ctx: ExecutionContext): Promise<void> {
  const store = ctx.results?.store;
  if (store === undefined) return;
  try {
    await store.sweepUnfinished();
  } catch (error) {
    ctx.emit({
      type: 'warning',
      message: `Could not remove what an interrupted download left in ${store.location}: ${errorMessageOf(error)}.`,
    });
  }
}

/** The results store: the one given, else the output folder's (absent without an output folder). */
function resultsOf(
  given: ResultFiles | undefined,
  options: ReturnType<typeof resolveExecuteOptions>,
): { results?: ResultFiles } {
  if (given !== undefined) return { results: given };
  if (options.outputDir === undefined) return {};
  return {
    results: createResultFiles(createFolderResultsStore(options.outputDir), options.recordedOutputDir),
  };
}

/** Open and unanswered jobs first: they take the slots before any new create. */
function orderForResume(planned: readonly PlannedJob[], jobs: ReadonlyMap<string, JobState>): PlannedJob[] {
  const rank = (job: PlannedJob): number => {
    const state = jobs.get(job.id);
    // The status first: a finished job ranks last without reading its attempts.
    if (state === undefined || (state.status !== 'open' && state.status !== 'creating')) return 2;
    const last = state.attempts.at(-1);
    if (last === undefined || !isSamePayloadHash(last.payloadHash, job)) return 2;
    return state.status === 'open' ? 0 : 1;
  };
  return planned
    .map((job, index) => ({ job, index, rank: rank(job) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.job);
}

/**
 * `--download-only`: a job's outcome as its state has it, with nothing sent. A done job (whatever
 * changed since) goes on to download what it owes; any other is left for a full apply.
 */
function reportWithoutRunning(ctx: ExecutionContext, job: PlannedJob): JobOutcome {
  const state = ctx.jobs.get(job.id);
  const last = state?.attempts.at(-1);
  if (state === undefined || last === undefined) return 'pending';
  switch (state.status) {
    case 'done':
      emitDoneSkipped(ctx, job.id, last.attempt, last.jobId, countOwed(ctx, state));
      return 'done';
    case 'open':
      return 'still-running';
    default:
      return state.status;
  }
}

/**
 * An unexpected error in one job (a bug, a journal that cannot be written) must not leave the others
 * unfollowed: it is reported, nothing new is created, and the job is left as the journal has it.
 */
async function runJobSafely(ctx: ExecutionContext, job: PlannedJob): Promise<JobOutcome> {
  try {
    return await runJob(ctx, job);
  } catch (error) {
    if (ctx.lockLost() !== undefined) return 'pending';
    ctx.emit({
      type: 'warning',
      id: job.id,
      message: `Job ${job.id} stopped on an unexpected error: ${errorMessageOf(error)}`,
    });
    ctx.stopCreating('error', `No new jobs are created after an unexpected error in job ${job.id}.`);
    const status = ctx.jobs.get(job.id)?.status;
    return status === 'open' ? 'still-running' : status === 'creating' ? 'creating' : 'pending';
  }
}

function summarize(
  plan: Plan,
  ctx: ExecutionContext,
  results: ReadonlyMap<string, JobResult>,
): ExecutionSummary {
  const counts: ExecutionSummary['counts'] = {
    total: plan.jobs.length,
    done: 0,
    downloading: 0,
    failed: 0,
    pending: 0,
    creating: 0,
    'still-running': 0,
    deferred: 0,
    uncertain: 0,
    downloadFailures: 0,
  };
  const jobs: ExecutionSummary['jobs'] = [];
  for (const job of plan.jobs) {
    const result: JobResult = results.get(job.id) ?? { outcome: 'pending', files: [], downloadFailures: 0 };
    counts[result.outcome]++;
    counts.downloadFailures += result.downloadFailures;
    const state = ctx.jobs.get(job.id);
    const jobId = state === undefined ? undefined : summarizeJob(state).lastJobId;
    jobs.push({
      id: job.id,
      outcome: result.outcome,
      ...(jobId === undefined ? {} : { jobId }),
      // Where each result is on this machine (the journal records keys relative to the output folder).
      files: result.files.map((file) => ctx.results?.pathOf(file) ?? file),
      ...(state === undefined ? {} : whyNotDone(result.outcome, state)),
      ...(result.outcome === 'downloading' && result.downloadError !== undefined
        ? { error: result.downloadError }
        : {}),
    });
  }
  const stopReason = ctx.stopReason();
  const summary: ExecutionSummary = {
    counts,
    creditsSpent: ctx.budget.spent,
    creditsSpentTotal: ctx.budget.spentTotal,
    exitReason: chooseExitReason(stopReason, counts),
    jobs,
  };
  if (stopReason !== undefined) summary.stopReason = stopReason;
  return summary;
}

/**
 * The failureKind and error of a job that ended failed, deferred or uncertain, from its latest attempt
 * (a script reading `apply --json` needs them without a second `status` call). Only such jobs' attempts
 * are read: a done job of a snapshot keeps its attempts on disk.
 */
function whyNotDone(outcome: JobOutcome, state: JobState): { failureKind?: string; error?: string } {
  if (outcome !== 'failed' && outcome !== 'deferred' && outcome !== 'uncertain') return {};
  const last = state.attempts.at(-1);
  if (last === undefined) return {};
  const error = last.error ?? last.uncertainReason;
  return {
    ...(last.failureKind === undefined ? {} : { failureKind: last.failureKind }),
    ...(error === undefined ? {} : { error }),
  };
}

/** Auth before credits before budget before interrupt; otherwise `ok` only when every job is done. */
export function chooseExitReason(
  stop: StopReason | undefined,
  counts: ExecutionSummary['counts'],
): ExitReason {
  // Every job done is success, even when creating stopped early (Ctrl-C after the last create):
  // nothing the user asked for is missing. The verdict `runner status` gives the run too (#33.11).
  const verdict = judgeRun({ jobs: counts.total, done: counts.done, downloading: counts.downloading });
  const allDone = verdict === 'finished' && counts.downloadFailures === 0;
  if (allDone) return 'ok';
  if (stop !== undefined && stop !== 'service' && stop !== 'error') return stop;
  return 'failed';
}

/** The executor's wait for late answers (#31.9): the folder's after a takeover, a shared run's. */
function lateAnswerOf(
  run: ExecuteRun,
  runId: string,
  windowMs: number | undefined,
): { lateAnswer?: ReturnType<typeof createLateAnswerWait> } {
  const answers =
    run.lateAnswers ?? (run.coordination === undefined ? undefined : lateAnswersOf(run.coordination, runId));
  return answers === undefined ? {} : { lateAnswer: createLateAnswerWait(answers, windowMs) };
}
