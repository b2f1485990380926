import { dirname, join } from 'node:path';
import { readJournalBatches, type JournalStart } from './read-journal.js';
import { type LoadedSnapshot } from '../../read-snapshot.js';
import { readSnapshot } from './snapshot-file.js';
import { createJournalReplay, type ReplayCheckpoint, type ReplayResult } from '../../replay.js';
import { SNAPSHOT_FILE, SnapshotProblem, type JournalPosition } from '../../snapshot-format.js';

/** A run's journal replayed, with or without its snapshot. */
export interface RunJournalReading {
  replay: ReplayResult;
  /** Where the journal ended when read (the lines counted as the reader numbers them). */
  end: JournalPosition;
  /** The prefix the snapshot stood for, when one was used. */
  snapshot?: JournalPosition;
  /** The replay apart from its jobs, as a snapshot stores it (`apply` writes the next one from it). */
  checkpoint: Omit<ReplayCheckpoint, 'jobs' | 'lines'>;
}

/**
 * Replays a run's journal as every command sees it: from its snapshot (`snapshot.jsonl` beside it)
 * plus the records after it, or, without a usable snapshot, the whole journal. Both give the same
 * state. A snapshot that is torn, damaged, of an unknown format or of another journal is ignored with
 * a warning, never trusted: the journal is the source of truth.
 */
export async function replayRunJournal(journalPath: string): Promise<RunJournalReading> {
  const source = `The state journal ${journalPath}`;
  const snapshotPath = join(dirname(journalPath), SNAPSHOT_FILE);
  let loaded: LoadedSnapshot | undefined;
  let ignored: string | undefined;
  try {
    loaded = await readSnapshot(snapshotPath, journalPath);
  } catch (error) {
    if (!(error instanceof SnapshotProblem) && !isFileSystemError(error)) throw error;
    ignored = `Ignored the state snapshot ${snapshotPath}: ${error.message}. The whole journal was replayed instead (the journal is the source of truth); the next apply writes a new snapshot.`;
  }
  const reading = await replayFrom(journalPath, source, loaded);
  if (ignored !== undefined) reading.replay.warnings.unshift(ignored);
  return reading;
}

async function replayFrom(
  journalPath: string,
  source: string,
  loaded: LoadedSnapshot | undefined,
): Promise<RunJournalReading> {
  const checkpoint: ReplayCheckpoint | undefined = loaded?.checkpoint;
  const replay = createJournalReplay(source, checkpoint);
  const end: JournalPosition = loaded === undefined ? { bytes: 0, lines: 0 } : { ...loaded.position };
  const start: JournalStart | undefined =
    loaded === undefined ? undefined : { offset: loaded.position.bytes, line: loaded.position.lines + 1 };
  for await (const batch of readJournalBatches(journalPath, start === undefined ? {} : { start })) {
    for (const line of batch) {
      replay.add(line);
      end.bytes += line.bytes + (line.terminated ? 1 : 0);
      end.lines = line.number;
    }
  }
  const { jobs: _jobs, lines: _lines, ...checkpointMeta } = replay.checkpoint();
  return {
    replay: replay.finish(),
    end,
    checkpoint: checkpointMeta,
    ...(loaded === undefined ? {} : { snapshot: loaded.position }),
  };
}

/** A snapshot that cannot be read (permissions, a folder in its place) is ignored like a damaged one. */
function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/**
 * {@link replayJournal} of a journal file, read line by line (a missing file replays to nothing).
 * Commands read a run's state with `replayRunJournal`, which starts from its snapshot.
 */
export async function replayJournalFile(path: string): Promise<ReplayResult> {
  const replay = createJournalReplay(`The state journal ${path}`);
  for await (const batch of readJournalBatches(path)) {
    for (const line of batch) replay.add(line);
  }
  return replay.finish();
}
