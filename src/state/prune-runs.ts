import type { RunSummary } from './run-summary.js';
import type { AcquireLockOptions } from './lock-options.js';

/** Which runs `runner state prune` deletes (both, when both are given: a run must pass each). */
export interface PruneRule {
  /** Keep the pipeline's N newest runs (by start, as `runner runs` lists them). */
  keepRuns?: number;
  /** Delete only runs last applied before this time (clock ms). */
  before?: number;
}

/** What one pruned (or, with `--dry-run`, prunable) run was: as `state prune` lists it. */
export interface PrunedRun {
  runId: string;
  pipeline: string;
  startedAt?: string;
  /** When its latest apply started: the newest time its state records. */
  lastAppliedAt?: string;
  /** Its jobs (the latest apply's plan). */
  jobs: number;
  creditsSpent: number;
  /** Bytes of state it held: its folder's files, or its records and snapshot in the database. */
  bytes: number;
  /** With `--force`: the paid work left unfinished that was deleted with it. */
  lost?: string;
}

/** What {@link StateStore.deleteRun} did with one run. */
export type DeleteRunResult =
  /** Deleted (or, with `dryRun`, would be). */
  | { kind: 'deleted'; run: PrunedRun }
  /** Kept: live (an apply holds its lock or lease), unfinished (without `force`), or not deletable. */
  | { kind: 'kept'; runId: string; reason: string; live: boolean }
  /** The run has no state there (nothing to delete). */
  | { kind: 'missing'; runId: string };

/** How {@link StateStore.deleteRun} deletes. */
export interface DeleteRunOptions {
  /** Decide and measure only; change nothing. */
  dryRun?: boolean;
  /** Also delete a run with paid work unfinished (never a live one). */
  force?: boolean;
  /** The folder lock's lease timing and identity, as apply takes it (`RUNNER_LOCK_STALE_MS`). */
  lock?: AcquireLockOptions;
  /**
   * Tests: called between the steps of a deletion (the folder: after the run's folder was set aside;
   * PostgreSQL: after its rows were deleted, before the commit). A throw there is a crash at that step.
   */
  seam?: (step: 'set-aside' | 'rows-deleted') => Promise<void>;
}

/**
 * The runs a rule prunes, oldest first, from `runs` as `listRuns` gives them (oldest first). A run
 * outside the newest `keepRuns` and last applied before `before` goes; with neither rule, none.
 */
export function selectRunsToPrune(runs: readonly RunSummary[], rule: PruneRule): RunSummary[] {
  if (rule.keepRuns === undefined && rule.before === undefined) return [];
  const beyondNewest =
    rule.keepRuns === undefined ? runs : runs.slice(0, Math.max(0, runs.length - rule.keepRuns));
  return beyondNewest.filter((run) => rule.before === undefined || isBefore(run, rule.before));
}

function isBefore(run: RunSummary, before: number): boolean {
  const last = run.lastAppliedAt ?? run.startedAt;
  // A run whose journal records no time cannot be shown to be old: kept.
  return last !== undefined && Date.parse(last) < before;
}

/**
 * The paid work a run left unfinished, as a phrase ("2 paid jobs still open, 1 done job's results not
 * saved"), or undefined when deleting its state loses nothing that was paid: one rule for both backends.
 * Open and creating jobs may still be owed a result; an uncertain create may have made a job that
 * only this state could adopt without paying again.
 */
export function describeUnfinished(run: RunSummary): string | undefined {
  const parts: string[] = [];
  const open = run.counts.open + run.counts.creating;
  if (open > 0) parts.push(`${count(open, 'paid job')} still open on the service`);
  if (run.counts.uncertain > 0)
    parts.push(
      `${count(run.counts.uncertain, 'create')} whose answer was lost (the job may exist and be paid)`,
    );
  if (run.unfinished.undownloaded > 0)
    parts.push(`${count(run.unfinished.undownloaded, 'done job')} whose results are not saved yet`);
  return parts.length === 0 ? undefined : parts.join(', ');
}

/** A run's line of the prune listing, from its summary. */
export function toPrunedRun(run: RunSummary, pipeline: string, bytes: number): PrunedRun {
  return {
    runId: run.runId,
    pipeline,
    ...(run.startedAt === undefined ? {} : { startedAt: run.startedAt }),
    ...(run.lastAppliedAt === undefined ? {} : { lastAppliedAt: run.lastAppliedAt }),
    jobs: run.counts.jobs,
    creditsSpent: run.creditsSpent,
    bytes,
  };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
