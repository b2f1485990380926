import { resolve } from 'node:path';
import {
  createFolderResultsStore,
  type FolderResultsStoreOptions,
} from './backends/folder/folder-results-store.js';
import type { ResultsStore } from './results-store.js';
import { isS3Output, openS3ResultsStore } from './s3-results.js';

/** What opening a results store may take: the folder backend's write seam (tests fill the disk with it). */
export type OpenResultsStoreOptions = FolderResultsStoreOptions;

/**
 * The results store of a run's output location as this machine resolved it: a folder path (relative
 * ones from `cwd`). The S3 backend (`s3://bucket/prefix`) is chosen here too, loaded only when used,
 * so start-up and the bundle of a folder run stay as they are.
 */
export async function openResultsStore(
  location: string,
  cwd: string,
  options: OpenResultsStoreOptions = {},
): Promise<ResultsStore> {
  if (isS3Output(location)) return openS3ResultsStore(location);
  return createFolderResultsStore(resolve(cwd, location), options);
}
