/**
 * Streams a result file to disk crash-safely: a temporary sibling, fsync, then rename, so a file at
 * `destinationPath` is always complete. Retries like any other safe GET.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createHttpError, NetworkError, UnexpectedResponseError, type RequestContext } from './errors.js';
import { describeUrl, discardBody, formatBytes, readHeader, type Http } from './http.js';
import { runWithRetry, type RetryContext } from './retry-loop.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../file-modes.js';

/** Results can be large videos: the deadline covers the whole body and every retry. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 600_000;

/** 2 GB: above any result the service makes, below what fills a disk by accident. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;

export interface DownloadDeps {
  http: Http;
  retry: Omit<RetryContext, 'method' | 'path' | 'safety' | 'signal'>;
  /** Total deadline of one download, all attempts together (a drip-fed body must not retry for ever). */
  timeoutMs: number;
  /** Largest file written; a larger one is an error and its partial file is removed. */
  maxBytes: number;
  /** Removes the temporaries a killed download left (one per client: it lists each folder once). */
  staleParts: StalePartSweeper;
}

/** Downloads `url` to `destinationPath`; the API key goes only to the base URL's own origin. */
export async function downloadToFile(
  deps: DownloadDeps,
  url: string,
  destinationPath: string,
  signal?: AbortSignal,
): Promise<{ bytes: number; sha256: string }> {
  const context: RequestContext = { method: 'GET', path: describeUrl(url) };
  await mkdir(dirname(destinationPath), { recursive: true, mode: PRIVATE_DIR_MODE });
  const deadline = AbortSignal.timeout(deps.timeoutMs);
  const combined = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
  const retryContext: RetryContext = {
    ...deps.retry,
    method: context.method,
    path: context.path,
    safety: 'safe',
    signal: combined,
  };
  try {
    return await runWithRetry(retryContext, () =>
      deps.http.send(
        {
          method: 'GET',
          url,
          context,
          apiKey: 'same-origin',
          timeoutMs: deps.timeoutMs,
          signal: combined,
        },
        async (response) => {
          if (response.status < 200 || response.status >= 300) {
            await response.body.dump();
            const retryAfter = readHeader(response, 'retry-after');
            throw createHttpError(context, {
              status: response.status,
              ...(retryAfter === undefined ? {} : { retryAfter }),
            });
          }
          const declared = Number(readHeader(response, 'content-length'));
          if (Number.isFinite(declared) && declared > deps.maxBytes) {
            discardBody(response);
            throw tooLarge(context, deps.maxBytes, `content-length ${declared}`);
          }
          await deps.staleParts.removeStaleParts(destinationPath);
          return writeAtomically(response.body, destinationPath, (bytes) => {
            if (bytes > deps.maxBytes)
              throw tooLarge(context, deps.maxBytes, `more than ${deps.maxBytes} bytes`);
          });
        },
      ),
    );
  } catch (error) {
    if (signal?.aborted !== true && deadline.aborted) {
      throw new NetworkError(context, 'timeout', `the download did not finish within ${deps.timeoutMs} ms`);
    }
    throw error;
  }
}

function tooLarge(context: RequestContext, maxBytes: number, received: string): Error {
  return new UnexpectedResponseError(
    context,
    { status: 200 },
    `the file is larger than --max-download-size ${formatBytes(maxBytes)} (received ${received}); the partial file was removed`,
  );
}

const PART_MARK = '.part-';

/** Removes the `.part-*` temporaries left beside a result's destination. */
export interface StalePartSweeper {
  removeStaleParts(destinationPath: string): Promise<void>;
}

/**
 * Deletes `<destination>.part-*` left by a download that a crash (SIGKILL) interrupted. Each result
 * has its own destination and the state lock keeps a second runner out, so any such file is stale.
 *
 * Each folder is listed once, on the first download into it, and the listing is kept: listing the
 * folder again before every download made a run's downloads quadratic in its results. Every download
 * into a folder awaits that first listing before it creates its own temporary, so the listing holds
 * only files of earlier processes, never one of this process's downloads in progress. A temporary that
 * this process leaves is removed by the download itself (on error) or renamed (on success); only a
 * killed process leaves one, and the next process finds it in its own first listing.
 */
export function createStalePartSweeper(
  /** Lists a folder's file names; a missing folder has none. */
  readFolder: (directory: string) => Promise<string[]> = (directory) =>
    readdir(directory).catch(() => [] as string[]),
): StalePartSweeper {
  const folders = new Map<string, Promise<Map<string, string[]>>>();
  return {
    async removeStaleParts(destinationPath) {
      const directory = dirname(destinationPath);
      let listing = folders.get(directory);
      if (listing === undefined) {
        listing = listParts(directory, readFolder);
        folders.set(directory, listing);
      }
      const parts = await listing;
      const name = basename(destinationPath);
      const stale = parts.get(name);
      if (stale === undefined) return;
      parts.delete(name);
      await Promise.all(stale.map((part) => rm(join(directory, part), { force: true })));
    },
  };
}

/**
 * The `.part-*` files of a folder by the destination they belong to: every name before a `.part-` in
 * the file name (what `<destination>.part-` as a prefix matches).
 */
async function listParts(
  directory: string,
  readFolder: (directory: string) => Promise<string[]>,
): Promise<Map<string, string[]>> {
  const names = await readFolder(directory);
  const parts = new Map<string, string[]>();
  for (const name of names) {
    for (let at = name.indexOf(PART_MARK, 1); at !== -1; at = name.indexOf(PART_MARK, at + 1)) {
      const destination = name.slice(0, at);
      const list = parts.get(destination);
      if (list === undefined) parts.set(destination, [name]);
      else list.push(name);
    }
  }
  return parts;
}

async function writeAtomically(
  body: AsyncIterable<Uint8Array>,
  destinationPath: string,
  checkSize: (bytes: number) => void,
): Promise<{ bytes: number; sha256: string }> {
  const temporaryPath = `${destinationPath}${PART_MARK}${randomBytes(6).toString('hex')}`;
  const hash = createHash('sha256');
  let bytes = 0;
  const file = await open(temporaryPath, 'w', PRIVATE_FILE_MODE);
  try {
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      checkSize(bytes);
      hash.update(chunk);
      await file.write(chunk);
    }
    await file.sync();
    await file.close();
    await rename(temporaryPath, destinationPath);
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temporaryPath, { force: true });
    throw error;
  }
  return { bytes, sha256: hash.digest('hex') };
}
