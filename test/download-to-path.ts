import { basename, dirname } from 'node:path';
import {
  createFolderResultsStore,
  type FolderResultsStoreOptions,
} from '../src/results/backends/folder/folder-results-store.js';
import type { DownloadOptions, ServiceClient } from '../src/service/service-client.js';

/**
 * Downloads a result into the file `path` through the folder results store of its folder, as apply
 * does: the client streams into the store's put (`client.downloadTo`), never into a path of its own.
 */
export function downloadToPath(
  client: ServiceClient,
  url: string,
  path: string,
  options?: DownloadOptions,
  storeOptions?: FolderResultsStoreOptions,
): Promise<{ bytes: number; sha256: string }> {
  const store = createFolderResultsStore(dirname(path), storeOptions);
  return client.downloadTo(
    url,
    (body, info) => store.put(basename(path), body, { signal: info.signal }),
    options,
  );
}
