import { readStoredRunStart, type ReplayResult, type RunAddress } from '../state/index.js';
import { todayUtc } from './prepare-plan.js';

/**
 * `{{ date }}` of a run: the day (UTC) its first apply started, today for a run not started yet, so
 * that a run resumed on a later day renders its jobs' ids and prompts as it did: the same jobs.
 */
export function runDateOf(runs: ReplayResult['runs']): string {
  const first = runs[0];
  return first === undefined ? todayUtc() : todayUtc(new Date(first.at));
}

/**
 * {@link runDateOf}, read from the start of the run's journal before its state is replayed, so the
 * manifest is expanded once, with the right date (see `readRunStart`). The replayed state still
 * decides: a command compares this with `runDateOf` of its replay and expands again if they differ.
 */
export async function peekRunDate(where: RunAddress): Promise<string> {
  const startedAt = await readStoredRunStart(where);
  return todayUtc(startedAt === undefined ? undefined : new Date(startedAt));
}
