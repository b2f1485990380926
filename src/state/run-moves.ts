import type { MoveAddress } from './backends/folder/move-run-state.js';
import type { LeaseView } from './backends/postgres/run-records.js';

export type { MoveAddress, LeaseView };

/**
 * `runner state push|pull|lease`: a run's state moved between its folder and PostgreSQL, and the
 * run's lease in PostgreSQL. Each function loads its backend's code (and node-postgres) only when
 * called, as `stateStoreFor` does: the commands that never move a run do not pay for it.
 */

/** Copies a run's journal from its folder into the database; returns how many records (`state push`). */
export async function pushRunState(where: MoveAddress): Promise<number> {
  return (await import('./backends/folder/move-run-state.js')).pushRunState(where);
}

/** Copies a run's records from the database into its folder; returns how many (`state pull`). */
export async function pullRunState(where: MoveAddress): Promise<number> {
  return (await import('./backends/folder/move-run-state.js')).pullRunState(where);
}

/** The run's lease in the database, undefined when no runner ever applied it (`state lease`). */
export async function inspectLease(stateUrl: string, run: MoveAddress): Promise<LeaseView | undefined> {
  return (await import('./backends/postgres/run-records.js')).inspectLease(stateUrl, run);
}

/** Ends the run's live lease; false when there was none (`state lease --break`). */
export async function breakLease(stateUrl: string, run: MoveAddress): Promise<boolean> {
  return (await import('./backends/postgres/run-records.js')).breakLease(stateUrl, run);
}
