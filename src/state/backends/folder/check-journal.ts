import { chmod, copyFile, open, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isRunnerError } from '../../../errors.js';
import { readJournalBatches } from './read-journal.js';
import { createJournalReplay, JournalLineError } from '../../replay.js';
import { readSnapshot } from './snapshot-file.js';
import { SNAPSHOT_FILE, SnapshotProblem } from '../../snapshot-format.js';
import { viewJobState } from '../../stored-job.js';

/** The first line of a journal that no runner wrote, and where it starts. */
export interface JournalProblem {
  line: number;
  /** Byte offset of the line's start: the journal cut there keeps every line before it. */
  offset: number;
  reason: string;
}

export interface JournalCheck {
  journalPath: string;
  /** Lines read (all of them, or up to the first bad one). */
  lines: number;
  problem?: JournalProblem;
  /** A torn last line, over-long lines, late duplicates: tolerated, reported. */
  warnings: string[];
  /** Why the snapshot beside the journal would be ignored; undefined when it is usable or absent. */
  snapshotProblem?: string;
}

/**
 * Replays a journal from its first line (never from its snapshot) with every check the commands
 * make, and reports its first bad line: a line that is not one JSON record, a record whose fields do
 * not match its type, or one out of place in its job's history (#24.4). Read-only.
 */
export async function checkJournal(journalPath: string): Promise<JournalCheck> {
  const replay = createJournalReplay(`The state journal ${journalPath}`);
  let offset = 0;
  let lines = 0;
  let problem: JournalProblem | undefined;
  outer: for await (const batch of readJournalBatches(journalPath)) {
    for (const line of batch) {
      try {
        replay.add(line);
      } catch (error) {
        if (error instanceof JournalLineError) problem = { line: line.number, offset, reason: error.reason };
        else if (isRunnerError(error)) problem = { line: line.number, offset, reason: error.message };
        else throw error;
        break outer;
      }
      lines = line.number;
      offset += line.bytes + (line.terminated ? 1 : 0);
    }
  }
  const warnings = problem === undefined ? replay.finish().warnings : [];
  const snapshotProblem = await checkSnapshot(journalPath);
  return {
    journalPath,
    lines,
    ...(problem === undefined ? {} : { problem }),
    warnings,
    ...(snapshotProblem === undefined ? {} : { snapshotProblem }),
  };
}

async function checkSnapshot(journalPath: string): Promise<string | undefined> {
  try {
    const loaded = await readSnapshot(join(dirname(journalPath), SNAPSHOT_FILE), journalPath);
    // Every job's whole state, which commands read only when they use it, checked now.
    for (const job of loaded?.checkpoint.jobs.values() ?? []) viewJobState(job);
    return undefined;
  } catch (error) {
    if (error instanceof SnapshotProblem) return error.message;
    return error instanceof Error ? error.message : String(error);
  }
}

export interface JournalRepair {
  /** The journal as it was, kept beside it (mode 0600). */
  copy: string;
  /** Whether the snapshot was removed: it covered lines past the cut (or could not be read). */
  snapshotRemoved: boolean;
}

/**
 * Cuts the journal at `problem.offset` (its first bad line and everything after it go), after copying
 * it whole to `journal.jsonl.before-repair-<time>`; removes the snapshot when it covers any of the cut
 * lines. The caller holds the state's lock.
 */
export async function cutJournal(
  journalPath: string,
  problem: JournalProblem,
  now: Date,
): Promise<JournalRepair> {
  const copy = `${journalPath}.before-repair-${now.toISOString().replaceAll(':', '-')}`;
  await copyFile(journalPath, copy);
  await chmod(copy, 0o600);
  const handle = await open(journalPath, 'r+');
  try {
    await handle.truncate(problem.offset);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  const snapshotPath = join(dirname(journalPath), SNAPSHOT_FILE);
  const covered = await readSnapshotCoverage(snapshotPath);
  const snapshotRemoved = covered !== null && (covered === undefined || covered > problem.offset);
  if (snapshotRemoved) await unlink(snapshotPath);
  return { copy, snapshotRemoved };
}

/** Bytes of the journal the snapshot covers; null without a snapshot, undefined when unreadable. */
async function readSnapshotCoverage(path: string): Promise<number | null | undefined> {
  let text: string;
  try {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(64 * 1024);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      text = buffer.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
  try {
    const head = JSON.parse(text.slice(0, text.indexOf('\n'))) as { journal?: { bytes?: unknown } };
    return typeof head.journal?.bytes === 'number' ? head.journal.bytes : undefined;
  } catch {
    return undefined;
  }
}
