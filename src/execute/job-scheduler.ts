import type { PlannedJob } from '../manifest/planned-job.js';
import type { RunCoordination } from '../state/index.js';
import type { ExecutionContext } from './context.js';
import type { JobOutcome } from './events.js';
import type { JobResult } from './job-result.js';
import { runSharedQueue, settleOthersJobs } from './run-shared.js';

/** Runs one job's create and poll (`task`) inside an open-job slot, given up when the task ends. */
export type JobSlot = (task: () => Promise<JobOutcome>) => Promise<JobOutcome>;

/**
 * How this process gets its jobs' open-job slots, as the run's state decides it ({@link schedulerFor}):
 * one process on the run counts them itself (the executor's p-limit), the processes of a shared run
 * count them together (claims in the database).
 */
export interface JobScheduler {
  /**
   * Calls `follow` for each job this process runs, with the slot its run takes, and resolves once
   * every call has. One process: every job of `toFollow`. A shared run: the jobs this process
   * claims, from the run's queue of `toFollow`.
   */
  followJobs(
    ctx: ExecutionContext,
    input: {
      planned: readonly PlannedJob[];
      toFollow: readonly PlannedJob[];
      /** The open-job slots this process starts with (`readStartConcurrency`). */
      workers: number;
      follow: (job: PlannedJob, slot: JobSlot) => Promise<JobOutcome>;
    },
  ): Promise<void>;
  /**
   * The outcomes of the planned jobs without one in `results` that other processes ran, as the run's
   * records have them now (none for one process).
   */
  othersResults(
    ctx: ExecutionContext,
    planned: readonly PlannedJob[],
    results: ReadonlyMap<string, JobResult>,
  ): Promise<Map<string, JobResult>>;
}

/**
 * The scheduler the run's state asks for: its `coordination` (`RunState.coordination`, joined) when
 * it is shared with other processes, else this process's own limit. state/ cannot hold this choice
 * itself (it may not import execute/, and a claim must rebuild the job and run it with the
 * executor's context): it says what the run is, and the executor adapts that here, in one place.
 */
export function schedulerFor(run: { readonly coordination?: RunCoordination }): JobScheduler {
  return run.coordination === undefined ? ownSlots : sharedSlots(run.coordination);
}

/** One process on the run: every job at once, each run inside the executor's p-limit. */
const ownSlots: JobScheduler = {
  async followJobs(ctx, { toFollow, follow }) {
    await Promise.all(toFollow.map((job) => follow(job, ctx.limiter.limit)));
  },
  othersResults: () => Promise.resolve(new Map()),
};

/** Several processes on one run: each job only once claimed, the slots counted in the database. */
function sharedSlots(coordination: RunCoordination): JobScheduler {
  return {
    followJobs: (ctx, input) => runSharedQueue(ctx, coordination, input),
    othersResults: (ctx, planned, results) => settleOthersJobs(ctx, coordination, planned, results),
  };
}
