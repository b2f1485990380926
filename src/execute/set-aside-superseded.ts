import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
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
    const folder = join(dirname(old.file), SUPERSEDED_DIR, `attempt-${old.attempt}`);
    await mkdir(folder, { recursive: true, mode: 0o700 });
    const to = join(folder, basename(old.file));
    await rename(old.file, to);
    moved.push({ from: old.file, to });
  }
  return moved;
}

async function isRecordedFile(file: string, bytes: number, sha256: string): Promise<boolean> {
  try {
    if ((await stat(file)).size !== bytes) return false;
  } catch {
    return false;
  }
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex') === sha256;
}
