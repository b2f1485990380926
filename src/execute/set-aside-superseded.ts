import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, mkdir, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { RunnerError } from '../errors.js';
import type { JobState } from '../state/job-state.js';

/** Folder, beside a superseded file, that holds the files of replaced attempts. */
export const SUPERSEDED_DIR = '.superseded';

/**
 * Moves the files of a job's replaced attempts (a changed job, `--retry-failed`) out of the output
 * folder into `.superseded/attempt-N/` beside them, before the new attempt downloads its own: a stale
 * `<id>+2.png` of an old attempt with two results never sits next to the new `<id>.png`, and an old
 * result is never silently overwritten (it was paid for). A file is moved only while it still is the
 * one the journal recorded (same size and SHA-256) and no current result has its name, so running
 * this again after a crash, or after the new files were written, moves nothing. Returns what moved.
 */
export async function setAsideSuperseded(state: JobState): Promise<{ from: string; to: string }[]> {
  const current = new Set(state.downloads.map((download) => download.file));
  const moved: { from: string; to: string }[] = [];
  for (const old of state.superseded ?? []) {
    if (current.has(old.file) || !(await isRecordedFile(old.file, old.bytes, old.sha256))) continue;
    const parent = join(dirname(old.file), SUPERSEDED_DIR);
    const folder = join(parent, `attempt-${old.attempt}`);
    await makeRealFolder(parent);
    await makeRealFolder(folder);
    const to = join(folder, basename(old.file));
    await rename(old.file, to);
    moved.push({ from: old.file, to });
  }
  return moved;
}

/**
 * Makes a folder, or takes the one there, never through a symbolic link: a `.superseded` link planted in
 * the output folder would move paid results wherever it points (issue #24.9).
 */
async function makeRealFolder(path: string): Promise<void> {
  try {
    await mkdir(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const found = await lstat(path);
  if (found.isSymbolicLink() || !found.isDirectory()) {
    throw new RunnerError(
      'INVALID_INPUT',
      `${path} ${found.isSymbolicLink() ? 'is a symbolic link' : 'is not a folder'}: earlier results are not moved through it; remove it and run apply again`,
    );
  }
}

async function isRecordedFile(file: string, bytes: number, sha256: string): Promise<boolean> {
  try {
    const found = await lstat(file);
    if (!found.isFile() || found.size !== bytes) return false;
  } catch {
    return false;
  }
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex') === sha256;
}
