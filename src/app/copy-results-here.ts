import type { ResultsStore } from '../results/results-store.js';
import type { ResultFiles } from '../results/result-files.js';
import type { JobState } from '../state/index.js';
import { holdsRecorded } from '../results/held-here.js';
import { recordedResults } from './results-here.js';

/**
 * Copies a run's recorded results from its store (a bucket) into a folder of this machine, each under
 * its key, for `runner report --out DIR` of a bucket output (#30.3): the page written there links every
 * result by its key, so the folder is a review that works offline. Only what the store holds as
 * recorded (same size and SHA-256: `missing` lists the others) is copied; a result already in the folder
 * with the recorded bytes is not copied again. The folder store's put is all or nothing.
 */
export async function copyResultsHere(
  from: ResultFiles,
  to: ResultsStore,
  state: ReadonlyMap<string, JobState>,
  missing: ReadonlyMap<string, ReadonlyMap<string, string>>,
): Promise<{ copied: number; bytes: number }> {
  let copied = 0;
  let bytes = 0;
  for (const { id, download } of recordedResults(state)) {
    if (missing.get(id)?.has(download.file) === true) continue;
    const key = from.keyOf(download.file);
    if (holdsRecorded(await to.stat(key), download)) continue;
    const body = await from.store.get(key);
    if (body === undefined) continue;
    const stored = await to.put(key, body, { sizeHint: download.bytes });
    if (stored.sha256 !== download.sha256) {
      throw new Error(
        `${key} read from ${from.store.location} is not the recorded result (SHA-256 ${stored.sha256}, recorded ${download.sha256})`,
      );
    }
    copied++;
    bytes += stored.bytes;
  }
  return { copied, bytes };
}
