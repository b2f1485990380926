import { parseJournalLine } from '../../replay.js';
import type { FirstRunRecord } from '../../run-reading.js';
import { resolveStateDir, type RunAddress } from '../../state-dir.js';
import { journalPathFor } from './journal.js';
import { readJournalLines } from './read-journal.js';

/**
 * When a run's first apply started (its first `run` record, clock ms), read from the start of its
 * journal without the lock, or undefined when it has none yet or cannot be read. A hint only, taken
 * before the plan is made so that a run resumed on a later day is planned once, with its start date:
 * the run's state, replayed under the lock, stays what decides (a run record is never rewritten).
 */
export async function readRunStart(input: RunAddress): Promise<number | undefined> {
  return (await readFirstRunRecord(input))?.at;
}

/**
 * The first `run` record of a run's journal (see {@link readRunStart}), its fields checked: `at`, and
 * `outputDir` (the output folder the run started with: a hint for the preflight before the lock).
 */
export async function readFirstRunRecord(input: RunAddress): Promise<FirstRunRecord | undefined> {
  return readFirstRunRecordIn(resolveStateDir(input));
}

/** {@link readFirstRunRecord} of the run whose state folder is `runDir` (`<root>/<pipeline>/<run>`). */
export async function readFirstRunRecordIn(runDir: string): Promise<FirstRunRecord | undefined> {
  const journalPath = journalPathFor(runDir);
  try {
    for await (const line of readJournalLines(journalPath)) {
      // The header, then the first run's record: a journal's first lines (or an entry of one, cut short).
      if (line.number > HEAD_LINES || line.text === undefined) return undefined;
      const record = parseJournalLine(line.text);
      // A file on disk: its fields are checked, not trusted.
      if (record?.type === 'run') {
        return {
          ...(typeof record.at === 'number' ? { at: record.at } : {}),
          ...(typeof record.outputDir === 'string' && record.outputDir !== ''
            ? { outputDir: record.outputDir }
            : {}),
        };
      }
    }
  } catch {
    // Unreadable now: the replay under the lock says so, with the error a user can act on.
  }
  return undefined;
}

/** Lines a journal's first run record comes within: after the header (a line) in every format. */
const HEAD_LINES = 4;
