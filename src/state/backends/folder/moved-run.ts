import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory } from './sync-directory.js';
import { SNAPSHOT_FILE } from '../../snapshot-format.js';
import { journalPathFor } from './journal.js';

/** In a run's folder: the run was pushed into a database (`runner state push`), whose copy goes on. */
export const MOVED_FILE = 'moved.json';

/** Where a moved run's state lives now. */
export interface MovedMark {
  /** The database, as shown (no password). */
  to: string;
  /** When it moved (ISO). */
  at: string;
}

/** The run folder's moved mark, or undefined when its state is still here. */
export async function readMovedMark(dir: string): Promise<MovedMark | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, MOVED_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const value = JSON.parse(text) as Partial<MovedMark>;
  return { to: String(value.to ?? 'a state database'), at: String(value.at ?? '?') };
}

/** Marks the run's folder as moved (after its records were copied into the database), fsynced. */
export async function writeMovedMark(dir: string, mark: MovedMark): Promise<void> {
  await writeFile(join(dir, MOVED_FILE), `${JSON.stringify({ schemaVersion: 1, ...mark })}\n`, {
    mode: 0o600,
    flush: true,
  });
  await syncDirectory(dir);
}

/**
 * A moved run's folder takes its state back (`runner state pull`): the copy left behind is kept
 * beside it (`journal.pushed-<time>.jsonl`), its snapshot removed, and the mark with it.
 */
export async function setAsidePushedCopy(dir: string, mark: MovedMark): Promise<string> {
  const aside = join(dir, `journal.pushed-${mark.at.replaceAll(':', '-')}.jsonl`);
  await rename(journalPathFor(dir), aside).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rm(join(dir, SNAPSHOT_FILE), { force: true });
  return aside;
}

export async function removeMovedMark(dir: string): Promise<void> {
  await rm(join(dir, MOVED_FILE), { force: true });
  await syncDirectory(dir);
}
