import { keyOfRecordedFile } from './result-key.js';
import type { ResultsStore } from './results-store.js';

/**
 * A run's results as this machine finds them: its store, and the journal's recorded files read as keys
 * (an earlier release's absolute paths, under the folder that run recorded, mapped to keys).
 */
export interface ResultFiles {
  readonly store: ResultsStore;
  /** The key of a file as the journal recorded it. */
  keyOf(recordedFile: string): string;
  /** Where that file is on this machine (a folder store), or undefined (a bucket). */
  pathOf(recordedFile: string): string | undefined;
}

export function createResultFiles(store: ResultsStore, recordedOutputDir: string | undefined): ResultFiles {
  const keyOf = (file: string) => keyOfRecordedFile(file, recordedOutputDir);
  return {
    store,
    keyOf,
    pathOf: (file) => store.localPath?.(keyOf(file)),
  };
}
