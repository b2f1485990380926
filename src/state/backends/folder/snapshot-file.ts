import { open as openCallback } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { PRIVATE_FILE_MODE } from '../../../file-modes.js';
import { readSnapshotFrom, type LoadedSnapshot } from '../../read-snapshot.js';
import { SNAPSHOT_FILE, SnapshotProblem, type PrefixCheck } from '../../snapshot-format.js';
import { SnapshotFile } from '../../stored-job.js';
import { serializeSnapshot, type SnapshotContent } from '../../write-snapshot.js';
import { isSamePrefix, readPrefixCheck } from './journal-prefix.js';
import { syncDirectory } from './sync-directory.js';

/*
 * The folder's snapshot file, `snapshot.jsonl` beside the run's journal: its bytes are made and read
 * by `serializeSnapshot` and `readSnapshotFrom` (shared with PostgreSQL, which stores the same bytes in
 * rows); here they are written to and read from the file, and checked against the journal file.
 */

/**
 * Reads a state snapshot and checks it whole before it is used: its header (format), that the journal
 * still starts with the prefix it covers (length and CRC-32 of both ends), every job line, and its end
 * line (count, length, CRC-32 of everything before it). Undefined when there is no snapshot; a
 * {@link SnapshotProblem} saying what is wrong with any other. Streamed: never more than a chunk and
 * one line of text in memory besides the jobs, which are {@link StoredJobState}s: their summaries are
 * parsed, their whole states read from the file (kept open) when used.
 */
export async function readSnapshot(path: string, journalPath: string): Promise<LoadedSnapshot | undefined> {
  let fd: number;
  try {
    fd = await openFile(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return readSnapshotFrom(new SnapshotFile(path, fd), (head) => checkPrefix(head, journalPath));
}

/**
 * Writes the state snapshot beside `journalPath` atomically: into `snapshot.jsonl.tmp` (mode 0600),
 * fsynced, then renamed over `snapshot.jsonl` and the folder fsynced. A crash at any point leaves the
 * previous snapshot or the new one, whole; a reader also checks its end line and CRC-32, so even a
 * file damaged later is never misread. Only the lock holder writes, so the temporary name is fixed
 * and a leftover of a killed run is simply overwritten. `jobs` must not change until this resolves.
 */
export async function writeSnapshot(journalPath: string, content: SnapshotContent): Promise<void> {
  const journal = await readPrefixCheck(journalPath, content.position);
  if (journal === undefined) {
    throw new Error(
      `the journal ${journalPath} does not hold ${content.position.bytes} bytes ending with a newline`,
    );
  }
  const path = join(dirname(journalPath), SNAPSHOT_FILE);
  const temp = `${path}.tmp`;
  const handle = await open(temp, 'w', PRIVATE_FILE_MODE);
  try {
    for (const buffer of serializeSnapshot(journal, content)) await handle.write(buffer);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path);
  await syncDirectory(dirname(path));
}

async function checkPrefix(expected: PrefixCheck, journalPath: string): Promise<void> {
  const journal = await readPrefixCheck(journalPath, expected);
  if (journal === undefined) {
    throw new SnapshotProblem(
      `it covers ${expected.bytes} bytes of the journal, which holds fewer (or not at a line's end)`,
    );
  }
  if (!isSamePrefix(journal, expected)) {
    throw new SnapshotProblem('the journal does not start with the records it was taken of');
  }
}

const openFile = promisify(openCallback);
