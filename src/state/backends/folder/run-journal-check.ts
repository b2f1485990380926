import { existsSync } from 'node:fs';
import type { RunAddress } from '../../state-dir.js';
import { checkJournal, cutJournal, type JournalCheck, type JournalProblem } from './check-journal.js';
import { journalPathFor } from './journal.js';
import { locateRunState } from './locate-run-state.js';
import { acquireLock } from './lock.js';

/**
 * `runner state check [--repair]` on a run's folder: the journal file is what it checks and cuts, so
 * it has no other backend. The use case (`app/state.ts`) says what was found; this finds the journal,
 * checks it, and cuts it under the run's lock.
 */
export interface RunJournal {
  /** The run's folder, for messages. */
  readonly dir: string;
  /** Its journal file. */
  readonly path: string;
  /** Whether the journal file exists (a run that never ran has none). */
  readonly exists: boolean;
}

/** A journal cut at its first bad line (see {@link repairRunJournal}). */
export interface RunJournalCut {
  /** The line it was cut at. */
  problem: JournalProblem;
  /** Lines kept. */
  lines: number;
  /** The journal as it was, kept beside it. */
  copy: string;
  /** Whether the snapshot was removed: it covered lines past the cut. */
  snapshotRemoved: boolean;
}

/** Finds the run's folder and its journal (a `--state-dir` journal of an old release included). */
export async function locateRunJournal(where: RunAddress): Promise<RunJournal> {
  const location = await locateRunState(where);
  const path = journalPathFor(location.dir);
  return { dir: location.dir, path, exists: existsSync(path) };
}

/** Replays the journal from its first line with every check apply makes (read-only). */
export async function checkRunJournal(journal: RunJournal): Promise<JournalCheck> {
  return checkJournal(journal.path);
}

/**
 * Checks the journal again under the run's lock (no apply appends while it is cut) and cuts it at its
 * first bad line; undefined when it is sound by then.
 */
export async function repairRunJournal(journal: RunJournal): Promise<RunJournalCut | undefined> {
  const lock = await acquireLock(journal.dir);
  try {
    const current = await checkJournal(journal.path);
    if (current.problem === undefined) return undefined;
    const repair = await cutJournal(journal.path, current.problem, new Date());
    return { problem: current.problem, lines: current.lines, ...repair };
  } finally {
    await lock.release();
  }
}
