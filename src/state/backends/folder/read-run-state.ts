import { existsSync } from 'node:fs';
import { checkJournalIdentity } from '../../journal-identity.js';
import type { RunStateReading } from '../../run-reading.js';
import type { RunAddress } from '../../state-dir.js';
import { journalPathFor } from './journal.js';
import { locateRunState } from './locate-run-state.js';
import { adoptLateRecords } from './late-records.js';
import { replayRunJournal } from './replay-run-journal.js';

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
  // Late answers not adopted yet (the next apply does): shown as they will be (`late-records.ts`).
  replay.warnings.push(...(await adoptLateRecords(journalPath, replay.jobs)).warnings);
  return { location, journalPath, exists: existsSync(journalPath), replay };
}
