import type { Clock } from '../clock.js';
import type { ResultFiles } from '../results/result-files.js';
import type { ServiceClient } from '../service/service-client.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import {
  applyJournalRecord,
  type AttemptState,
  type JobState,
  type JournalEntry,
  type JournalRecord,
  type JournalWriter,
  type LateEntry,
  type OtherRunsJobs,
  type StateSnapshots,
  type UploadCache,
  viewJobState,
} from '../state/index.js';
import { isRunnerError } from '../errors.js';
import type { ExecuteDeps, ExecuteRun } from './options.js';
import type { Budget } from './budget.js';
import type { JobLimiter } from './concurrency.js';
import type { ExecutionEvent, StopReason } from './events.js';
import type { ResolvedOptions } from './options.js';

/** Shared by every job of one `executePlan` call. */
export interface ExecutionContext {
  readonly pipeline: string;
  readonly options: ResolvedOptions;
  readonly client: ServiceClient;
  readonly clock: Clock;
  readonly random: () => number;
  readonly uploadCache: UploadCache;
  /** What the other runs of the pipeline hold (`ExecuteDeps.readOtherRuns`). */
  readonly readOtherRuns?: () => Promise<OtherRunsJobs>;
  /** `ExecuteDeps.afterDownload`. */
  readonly afterDownload?: ExecuteDeps['afterDownload'];
  /** Where the run's results live on this machine (absent without an output folder). */
  readonly results?: ResultFiles;
  /** This machine's name, journaled with each download. */
  readonly machine?: string;
  readonly uploadsInFlight: Map<string, Promise<string>>;
  readonly budget: Budget;
  readonly limiter: JobLimiter;
  /** Live state: the replayed jobs with every record this run journals applied. */
  readonly jobs: Map<string, JobState>;
  /** Aborted on 401/403: every request and wait stops at once. */
  readonly hardSignal: AbortSignal;
  /**
   * Aborted on 401/403 only: a create already sent is not abandoned when the lease is lost, so that
   * its answer (a job paid, or nothing made) is learned and stored late for the next holder (#31.9).
   */
  readonly createSignal: AbortSignal;
  /**
   * Before an unanswered create without an idempotency key is called uncertain: waits for the answer
   * another runner, whose lease ended moments ago, may still store (see `late-answer.ts`); true when
   * the job's state changed. Absent where no other runner sends creates (one process on the run).
   */
  awaitLateAnswer?(job: PlannedJob, attempt: AttemptState): Promise<boolean>;
  /**
   * Aborted on 401/403 and on the first Ctrl-C/SIGTERM: downloads stop at once (their partial files
   * are removed; the result URLs are journaled, so a later apply downloads them).
   */
  readonly downloadSignal: AbortSignal;
  emit(event: ExecutionEvent): void;
  /** Journals (fsynced) and then applies the record to the live state; a failed append stops creating. */
  record(entry: JournalEntry): Promise<void>;
  /**
   * Verifies the state's lock before a create: false (creating and polling stopped, nothing more
   * journaled) when this runner no longer holds it.
   */
  holdsLock(options?: { fencedWriteFollows?: boolean }): Promise<boolean>;
  /** The STATE_LOCKED error once the lock was found lost: `executePlan` ends with it. */
  lockLost(): Error | undefined;
  /**
   * Runs a create's reservation and intent (`task`) with the budget brought up to date with what the
   * other processes applying the run spent, while none of them is inside theirs (several machines on
   * one run under a cap; absent otherwise): two machines never both take the cap's last credits.
   */
  withOthersSpending?: <T>(task: () => Promise<T>) => Promise<T>;
  /** Why no new job may be created, or undefined. */
  stopReason(): StopReason | undefined;
  stopCreating(reason: StopReason, message: string): void;
  /**
   * Whether creating stopped for a reason other than the budget (which only concerns the jobs that
   * did not fit): then even a create that already reserved its credits is not sent.
   */
  stoppedBeyondBudget(): boolean;
  /** Stops everything (401/403). */
  abortAll(message: string): void;
}

/**
 * A later stop replaces an earlier one only when it says more about the exit: a 401 after the budget
 * stop still exits 4, a 402 after a service fault still exits 3 (see `chooseExitReason`).
 */
const STOP_RANK: Readonly<Record<StopReason, number>> = {
  auth: 5,
  credits: 4,
  budget: 3,
  interrupted: 2,
  service: 1,
  error: 1,
};

export function createExecutionContext(input: {
  pipeline: string;
  options: ResolvedOptions;
  client: ServiceClient;
  clock: Clock;
  random: () => number;
  uploadCache: UploadCache;
  readOtherRuns?: () => Promise<OtherRunsJobs>;
  afterDownload?: ExecuteDeps['afterDownload'];
  results?: ResultFiles;
  machine?: string;
  budget: Budget;
  limiter: JobLimiter;
  jobs: Map<string, JobState>;
  /**
   * The caller's replayed state, whose job objects `jobs` starts out sharing: a job is copied before
   * its first change, so the caller's state is never mutated and only jobs this run touches are held twice.
   */
  original?: ReadonlyMap<string, JobState>;
  journal: Pick<JournalWriter, 'append' | 'appendLate'>;
  lock?: ExecuteRun['lock'];
  snapshots?: StateSnapshots;
  onEvent: (event: ExecutionEvent) => void;
  /** Ctrl-C / SIGTERM (`ExecuteDeps.signal`). */
  interruptSignal?: AbortSignal;
  /** What the other processes of a shared run spent, under its spending lock (`RunCoordination.withSpendingLock`). */
  withSpendingLock?: <T>(task: (othersSpent: number) => Promise<T>) => Promise<T>;
  /** `ExecutionContext.awaitLateAnswer`, given the context (`createLateAnswerWait`). */
  lateAnswer?: (ctx: ExecutionContext, job: PlannedJob, attempt: AttemptState) => Promise<boolean>;
}): ExecutionContext {
  const hard = new AbortController();
  const auth = new AbortController();
  let stop: StopReason | undefined;
  let beyondBudget = false;
  let lost: Error | undefined;
  const loseLock = (error: unknown): Error => {
    if (lost === undefined) {
      lost = error instanceof Error ? error : new Error(String(error));
      ctx.stopCreating('error', lost.message);
      // The state is another runner's now: no poll, download or journal write of this one goes on.
      hard.abort(lost);
    }
    return lost;
  };
  const recordHeld = async (entry: JournalEntry, step: { stored: boolean }): Promise<void> => {
    if (lost !== undefined) throw lost;
    const assertHeld = () => {
      try {
        input.lock?.assertHeld?.();
      } catch (error) {
        throw loseLock(error);
      }
    };
    assertHeld();
    let written: JournalRecord;
    try {
      written = await input.journal.append(entry);
    } catch (error) {
      // A step that cannot be journaled cannot be resumed safely: nothing more is paid (#24.3).
      ctx.stopCreating(
        'error',
        `No new jobs are created: the state journal could not be written (${error instanceof Error ? error.message : String(error)}).`,
      );
      throw error;
    }
    step.stored = true;
    // Again after the write: a runner paused during it must not go on to send the create it announced.
    assertHeld();
    if (input.original !== undefined) unshare(input.jobs, input.original, written);
    applyJournalRecord(input.jobs, written);
    input.snapshots?.afterRecord(written, input.jobs);
  };
  const fencedOut = (error: unknown): boolean =>
    lost !== undefined || (isRunnerError(error) && error.code === 'STATE_LOCKED');
  /** Stores a create's answer outside the lease's fence, for the runner that took the run over. */
  const keepLate = async (entry: LateEntry): Promise<void> => {
    const what =
      entry.type === 'created'
        ? `its answer, job ${entry.jobId} (paid),`
        : `its refusal (${entry.code}: nothing was made)`;
    let kept = false;
    try {
      kept = (await input.journal.appendLate?.(entry)) ?? false;
    } catch {
      kept = false;
    }
    input.onEvent({
      type: 'warning',
      id: entry.id,
      message: kept
        ? `This runner's lease ended while the create of job ${entry.id} was in flight: ${what} is kept in the state as a late record, and the runner that took the run over goes on from it.`
        : `This runner's lease ended while the create of job ${entry.id} was in flight, and ${what} could not be kept in the state.${entry.type === 'created' ? ` Job ${entry.jobId} exists on the service: look it up there before re-sending job ${entry.id}.` : ''}`,
    });
  };
  const ctx: ExecutionContext = {
    pipeline: input.pipeline,
    options: input.options,
    client: input.client,
    clock: input.clock,
    random: input.random,
    uploadCache: input.uploadCache,
    ...(input.readOtherRuns === undefined ? {} : { readOtherRuns: input.readOtherRuns }),
    ...(input.afterDownload === undefined ? {} : { afterDownload: input.afterDownload }),
    ...(input.results === undefined ? {} : { results: input.results }),
    ...(input.machine === undefined ? {} : { machine: input.machine }),
    uploadsInFlight: new Map(),
    budget: input.budget,
    limiter: input.limiter,
    jobs: input.jobs,
    hardSignal: hard.signal,
    createSignal: auth.signal,
    ...(input.lateAnswer === undefined
      ? {}
      : {
          awaitLateAnswer: (job: PlannedJob, attempt: AttemptState) =>
            (input.lateAnswer as NonNullable<typeof input.lateAnswer>)(ctx, job, attempt),
        }),
    downloadSignal:
      input.interruptSignal === undefined
        ? hard.signal
        : AbortSignal.any([hard.signal, input.interruptSignal]),
    emit: input.onEvent,
    async record(entry) {
      const step = { stored: false };
      try {
        await recordHeld(entry, step);
      } catch (error) {
        // A create's answer that came after the lease ended is still what happened (#31.9).
        const answer = entry.type === 'created' || entry.type === 'create-failed';
        if (answer && !step.stored && fencedOut(error)) {
          await keepLate(entry);
        }
        throw error;
      }
    },
    async holdsLock(options) {
      if (lost !== undefined) return false;
      try {
        await input.lock?.verify(options);
        return true;
      } catch (error) {
        loseLock(error);
        return false;
      }
    },
    lockLost: () => lost,
    ...(input.withSpendingLock === undefined
      ? {}
      : {
          withOthersSpending: <T>(task: () => Promise<T>): Promise<T> =>
            (input.withSpendingLock as NonNullable<typeof input.withSpendingLock>)((others) => {
              input.budget.countOthers(others);
              return task();
            }),
        }),
    stopReason: () => stop,
    stopCreating(reason, message) {
      if (reason !== 'budget') beyondBudget = true;
      if (stop !== undefined && STOP_RANK[reason] <= STOP_RANK[stop]) return;
      stop = reason;
      input.onEvent({ type: 'stopped-creating', reason, message });
    },
    stoppedBeyondBudget: () => beyondBudget,
    abortAll(message) {
      ctx.stopCreating('auth', message);
      hard.abort(new Error(message));
      auth.abort(new Error(message));
    },
  };
  return ctx;
}

function unshare(
  jobs: Map<string, JobState>,
  original: ReadonlyMap<string, JobState>,
  record: JournalRecord,
): void {
  if (!('id' in record)) return;
  const job = jobs.get(record.id);
  // The whole state is copied: a job still in the snapshot is read first (a clone of it would not be).
  if (job !== undefined && job === original.get(record.id))
    jobs.set(record.id, structuredClone(viewJobState(job)));
}
