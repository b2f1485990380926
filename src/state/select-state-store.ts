import { existsSync } from 'node:fs';
import { folderStateStore } from './backends/folder/folder-store.js';
import { journalPathFor } from './backends/folder/journal.js';
import { readFirstRunRecordIn } from './backends/folder/read-run-start.js';
import type { ListRunsInput, RunsView } from './run-summary.js';
import type { RunStateReading } from './run-reading.js';
import type { RunAddress } from './state-dir.js';
import type { OpenRunInput, ReadRunIncludes, RunState, StateStore } from './state-store.js';

/**
 * The backend that holds a run's state: PostgreSQL when `stateUrl` (`--state postgres://…` or
 * `RUNNER_STATE_URL`) is set, else the local folder. The PostgreSQL code (and node-postgres) is loaded
 * only then, so the folder backend's start-up does not pay for it.
 */
export async function stateStoreFor(where: { stateUrl?: string }): Promise<StateStore> {
  if (where.stateUrl === undefined) return folderStateStore;
  const { createPostgresStore } = await import('./backends/postgres/postgres-store.js');
  return createPostgresStore(where.stateUrl);
}

/** Opens a run's state for `apply` in its backend (see {@link StateStore.openRun}). */
export async function openStoredRun(input: OpenRunInput): Promise<RunState> {
  return (await stateStoreFor(input)).openRun(input);
}

/** Reads a run's state without its lock, from its backend (see {@link StateStore.readRun}). */
export async function readStoredRun(where: RunAddress, include?: ReadRunIncludes): Promise<RunStateReading> {
  return (await stateStoreFor(where)).readRun(where, include);
}

/** Every run of a pipeline with state in its backend (see {@link StateStore.listRuns}). */
export async function listStoredRuns(input: ListRunsInput & { stateUrl?: string }): Promise<RunsView> {
  return (await stateStoreFor(input)).listRuns(input);
}

/** When the run's first apply started, from its backend (see {@link StateStore.readRunStart}). */
export async function readStoredRunStart(where: RunAddress): Promise<number | undefined> {
  return (await stateStoreFor(where)).readRunStart(where);
}

/**
 * Whether the run whose state is at `where` still holds it, judged in its own backend: the run
 * folder's journal (`where.stateDir` is the run's folder itself), or the run's records in its
 * database (a database run is never "no journal": #31.1). A database that cannot be read may still
 * hold it: true. For the output folder's claim (`output-claim.ts`).
 */
export async function stateHoldsRun(where: {
  stateDir: string;
  stateUrl?: string;
  pipeline: string;
  runId: string;
}): Promise<boolean> {
  if (where.stateUrl === undefined) return existsSync(journalPathFor(where.stateDir));
  try {
    const store = await stateStoreFor({ stateUrl: where.stateUrl });
    const run = { manifestFile: where.stateDir, pipeline: where.pipeline, runId: where.runId };
    return (await store.readRun(run)).exists;
  } catch {
    return true;
  }
}

/**
 * When the run a folder state's claim names first started (its first `run` record), read from that
 * folder on this machine: undefined for a database's claim, or a folder without that journal here.
 * Two states whose runs started at the same moment are copies of one run's history (a CI cache
 * restored into another folder), not two runs (`output-claim.ts`).
 */
export async function claimedRunStart(claim: {
  stateDir: string;
  stateUrl?: string;
}): Promise<number | undefined> {
  if (claim.stateUrl !== undefined) return undefined;
  return (await readFirstRunRecordIn(claim.stateDir))?.at;
}
