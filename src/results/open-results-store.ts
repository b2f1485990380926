import { resolve } from 'node:path';
import {
  createFolderResultsStore,
  type FolderResultsStoreOptions,
} from './backends/folder/folder-results-store.js';
import type { ResultsStore } from './results-store.js';

/** What opening a results store may take: the folder backend's write seam (tests fill the disk with it). */
export type OpenResultsStoreOptions = FolderResultsStoreOptions;

/**
 * The results store of a run's output location as this machine resolved it: a folder path (relative
 * ones from `cwd`). The S3 backend (`s3://bucket/prefix`) is chosen here too, loaded only when used,
 * so start-up and the bundle of a folder run stay as they are.
 */
// eslint-disable-next-line @typescript-eslint/require-await -- async: the S3 backend is imported on demand
export async function openResultsStore(
  location: string,
  cwd: string,
  options: OpenResultsStoreOptions = {},
): Promise<ResultsStore> {
  return createFolderResultsStore(resolve(cwd, location), options);
}
