import type { ResultFiles } from './result-files.js';
import type { StoredResult } from './results-store.js';

/** A result as the journal recorded it: its file (a key, or an earlier release's path) and what was stored. */
export interface RecordedResult {
  file: string;
  bytes: number;
  sha256: string;
}

/**
 * True when what a store holds under a result's key is the recorded result: the same size and
 * SHA-256 (#30.2). The one test of "is this result here" for apply's resume and `--download-only`
 * (src/execute), and status, report and `report --out DIR` (src/app/results-here.ts).
 */
export function holdsRecorded(
  found: StoredResult | undefined,
  recorded: Omit<RecordedResult, 'file'>,
): boolean {
  return found !== undefined && found.bytes === recorded.bytes && found.sha256 === recorded.sha256;
}

/** True when this machine's store holds the recorded result under its key (one `stat`). */
export async function isHeldHere(files: ResultFiles, recorded: RecordedResult): Promise<boolean> {
  return holdsRecorded(await files.store.stat(files.keyOf(recorded.file)), recorded);
}
