import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RunnerError } from '../errors.js';
import { syncDirectory } from './journal.js';
import { SNAPSHOT_FILE } from './snapshot-format.js';
import { journalPathFor } from './state-dir.js';

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

/**
 * Applying a run whose state moved elsewhere would pay again for what was done there (#31.11):
 * refused, naming where it went and the command that brings it back.
 */
export function movedRunError(
  run: { pipeline: string; runId: string; manifestFile: string },
  here: string,
  moved: { to: string; at: string; back: string; applyThere: string },
): RunnerError {
  return new RunnerError(
    'STATE_MISMATCH',
    `Run "${run.runId}" of pipeline "${run.pipeline}" moved from ${here} to ${moved.to} at ${moved.at}: its state lives there now, and going on from the copy left here could pay again for what was done there. Nothing was created.`,
    {
      hint: `Apply it where it lives: ${moved.applyThere}. To bring it back here: ${moved.back}.`,
    },
  );
}

/** The command that names a run, as a hint shows it: `runner state push m.yaml --run r1 …`. */
export function moveCommand(
  words: string[],
  run: { manifestFile: string; runId: string; stateDir?: string | undefined },
  extra: string[] = [],
): string {
  const dir = run.stateDir === undefined ? [] : ['--state-dir', run.stateDir];
  return ['runner', ...words, run.manifestFile, '--run', run.runId, ...dir, ...extra].map(quote).join(' ');
}

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
