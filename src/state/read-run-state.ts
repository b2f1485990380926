import { existsSync } from 'node:fs';
import { checkJournalIdentity, locateRunState, type RunStateLocation } from './locate-run-state.js';
import type { ReplayResult } from './replay.js';
import { replayRunJournal } from './replay-run-journal.js';
import { journalPathFor, type RunAddress } from './state-dir.js';

/** One run's state as the read-only commands (plan, status, report) see it. */
export interface RunStateReading {
  location: RunStateLocation;
  journalPath: string;
  /** Whether the run has a journal at all: a run that never applied has none. */
  exists: boolean;
  /** The replayed journal; empty when there is none. */
  replay: ReplayResult;
}

/**
 * Reads a run's state without taking its lock: found where apply keeps it, replayed from its snapshot
 * and the journal after it (or the whole journal, line by line), and
 * refused (STATE_MISMATCH) when the journal there belongs to another pipeline or run, so a read never
 * mixes two runs' jobs. Apply opens state with `openRunState` instead.
 */
export async function readRunState(where: RunAddress): Promise<RunStateReading> {
  const location = await locateRunState(where);
  const journalPath = journalPathFor(location.dir);
  const { replay } = await replayRunJournal(journalPath);
  checkJournalIdentity(replay, where, journalPath);
  return { location, journalPath, exists: existsSync(journalPath), replay };
}
