import type { ResultFiles } from '../results/result-files.js';
import { joinKey, keyFolder, keyName } from '../results/result-key.js';
import type { JobState } from '../state/index.js';

/** Folder, beside a superseded file, that holds the files of replaced attempts. */
export const SUPERSEDED_DIR = '.superseded';

/** The key a superseded result is moved to: `.superseded/attempt-N/` beside where it was. */
export function supersededKey(key: string, attempt: number): string {
  return joinKey(keyFolder(key), SUPERSEDED_DIR, `attempt-${attempt}`, keyName(key));
}

/**
 * Moves the results of a job's replaced attempts (a changed job, `--retry-failed`) out of the way,
 * into `.superseded/attempt-N/` beside them in the run's results store, before the new attempt
 * downloads its own: a stale `<id>+2.png` of an old attempt with two results never sits next to the new
 * `<id>.png`, and an old result is never silently overwritten (it was paid for). A result is moved only
 * while it still is the one the journal recorded (same size and SHA-256) and no current result has its
 * key, so running this again after a crash, or after the new files were written, moves nothing. The
 * folder store never moves through a symbolic link planted in the output folder (#24.9). Returns the
 * keys moved.
 */
export async function setAsideSuperseded(
  state: JobState,
  results: ResultFiles,
): Promise<{ from: string; to: string }[]> {
  const current = new Set(state.downloads.map((download) => results.keyOf(download.file)));
  const moved: { from: string; to: string }[] = [];
  for (const old of state.superseded ?? []) {
    const from = results.keyOf(old.file);
    if (current.has(from)) continue;
    const found = await results.store.stat(from);
    if (found === undefined || found.bytes !== old.bytes || found.sha256 !== old.sha256) continue;
    const to = supersededKey(from, old.attempt);
    await results.store.move(from, to);
    moved.push({ from, to });
  }
  return moved;
}
