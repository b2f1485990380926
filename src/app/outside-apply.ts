import { buildStatusView, type JobState, type ViewStatus } from '../state/index.js';

/**
 * The run's jobs an apply left out (`--only`, `--exclude`, `--replace-from` picks the rejected jobs),
 * counted by their status as `runner status` shows it. A targeted apply judges and exits by its own
 * jobs (docs/cli-reference.md "Exit codes"); without these counts its "All 1 jobs done." read as the
 * whole night's verdict while two other jobs had failed.
 *
 * In `apply --json` as `outsideThisApply` (only when the apply left jobs out).
 */
export type OutsideThisApply = Record<ViewStatus, number> & { jobs: number };

/** @returns undefined when the apply left no job out. */
export function countOutsideThisApply(
  state: ReadonlyMap<string, JobState>,
  leftOut: readonly string[],
): OutsideThisApply | undefined {
  if (leftOut.length === 0) return undefined;
  // Only the left-out jobs: a job of the state the manifest no longer has is no job of the run's plan.
  const theirs = new Map<string, JobState>();
  for (const id of leftOut) {
    const job = state.get(id);
    if (job !== undefined) theirs.set(id, job);
  }
  const { totals } = buildStatusView(theirs, leftOut);
  const { jobs, pending, creating, open, done, downloading, failed, deferred, uncertain } = totals;
  return { jobs, pending, creating, open, done, downloading, failed, deferred, uncertain };
}

/** How many of them are not done with every result saved. */
export function notDoneOutside(outside: OutsideThisApply): number {
  return outside.jobs - outside.done;
}
