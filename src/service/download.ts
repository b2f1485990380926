/**
 * Streams a result file to disk crash-safely: a temporary sibling, fsync, then rename, so a file at
 * `destinationPath` is always complete. Every write is checked (a short write is continued, a failed
 * one removes the temporary), and the size and hash returned are those of the bytes on disk after the
 * fsync. Retries like any other safe GET; never sends the API key.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createHttpError, NetworkError, UnexpectedResponseError, type RequestContext } from './errors.js';
import { describeUrl, discardBody, formatBytes, readHeader, type Http } from './http.js';
import { describeNotMedia, MEDIA_HEAD_BYTES } from './result-media.js';
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
  /** Opens a result's temporary file for writing. @default {@link openResultFile} (node:fs) */
  openFile?: OpenResultFile;
}

/** The writes a download makes: a seam so tests can fill the disk (ENOSPC) without a full disk. */
export interface ResultFileHandle {
  /** Writes from `data[offset, offset + length)` at the end; resolves with the bytes written (maybe fewer). */
  write(data: Uint8Array, offset: number, length: number): Promise<number>;
  sync(): Promise<void>;
  /** The file's size on disk now. */
  size(): Promise<number>;
  close(): Promise<void>;
}

export type OpenResultFile = (path: string) => Promise<ResultFileHandle>;

/** {@link OpenResultFile} over node:fs: a new private file (mode 0600). */
export const openResultFile: OpenResultFile = async (path) => {
  const handle = await open(path, 'w', PRIVATE_FILE_MODE);
  return {
    write: async (data, offset, length) => (await handle.write(data, offset, length)).bytesWritten,
    sync: () => handle.sync(),
    size: async () => (await handle.stat()).size,
    close: () => handle.close(),
  };
};

/**
 * Downloads `url` to `destinationPath`. The API key is never sent, whatever the URL's origin: a
 * result link on the API's own origin must not read an API answer with the key (issue #24.7). An
 * answer that is not media (JSON, HTML, …) is refused and nothing is written.
 */
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
          apiKey: 'never',
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
          const contentType = readHeader(response, 'content-type');
          await deps.staleParts.removeStaleParts(destinationPath);
          return writeAtomically(response.body, destinationPath, {
            openFile: deps.openFile ?? openResultFile,
            ...(Number.isSafeInteger(declared) && declared >= 0 ? { declared } : {}),
            checkHead: (head) => {
              const problem = describeNotMedia(contentType, head);
              if (problem !== undefined) {
                throw new UnexpectedResponseError(
                  context,
                  { status: response.status },
                  `${problem}; nothing was saved`,
                );
              }
            },
            checkSize: (bytes) => {
              if (bytes > deps.maxBytes)
                throw tooLarge(context, deps.maxBytes, `more than ${deps.maxBytes} bytes`);
            },
            cutShort: (received, declaredBytes) =>
              new NetworkError(
                context,
                'reset',
                `the body ended after ${received} of the ${declaredBytes} bytes its content-length declared`,
              ),
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

interface WriteChecks {
  openFile: OpenResultFile;
  /** The content-length, when the answer declared one: the body must be exactly that long. */
  declared?: number;
  /** Throws when the first bytes are not a result file (before anything is written). */
  checkHead(head: Uint8Array): void;
  /** Throws when the body grew too large. */
  checkSize(bytes: number): void;
  /** The error for a body shorter than its content-length (retried like a reset). */
  cutShort(received: number, declared: number): Error;
}

/**
 * Writes the body into a temporary sibling, checks it, fsyncs it, checks that the file on disk holds
 * every byte, and renames it into place. The hash covers the bytes the writes reported written, so a
 * short write can never be recorded as a whole file (issue #24.3). On any error the temporary goes.
 */
async function writeAtomically(
  body: AsyncIterable<Uint8Array>,
  destinationPath: string,
  checks: WriteChecks,
): Promise<{ bytes: number; sha256: string }> {
  const temporaryPath = `${destinationPath}${PART_MARK}${randomBytes(6).toString('hex')}`;
  const hash = createHash('sha256');
  let received = 0;
  let written = 0;
  let head: Uint8Array[] | undefined = [];
  let headBytes = 0;
  let file: ResultFileHandle | undefined;
  const writeAll = async (target: ResultFileHandle, chunk: Uint8Array) => {
    for (let offset = 0; offset < chunk.byteLength;) {
      const count = await target.write(chunk, offset, chunk.byteLength - offset);
      if (!(count > 0)) throw noSpace(temporaryPath, written);
      hash.update(chunk.subarray(offset, offset + count));
      offset += count;
      written += count;
    }
  };
  // The first bytes are held until they show what the answer is: a refused one writes nothing.
  const startFile = async (): Promise<ResultFileHandle> => {
    const start = Buffer.concat(head ?? []);
    head = undefined;
    checks.checkHead(start);
    const opened = await checks.openFile(temporaryPath);
    file = opened;
    await writeAll(opened, start);
    return opened;
  };
  try {
    for await (const chunk of body) {
      received += chunk.byteLength;
      checks.checkSize(received);
      if (file !== undefined) {
        await writeAll(file, chunk);
        continue;
      }
      head?.push(chunk);
      headBytes += chunk.byteLength;
      if (headBytes >= MEDIA_HEAD_BYTES) file = await startFile();
    }
    if (checks.declared !== undefined && received !== checks.declared)
      throw checks.cutShort(received, checks.declared);
    const opened = file ?? (await startFile());
    await opened.sync();
    const onDisk = await opened.size();
    if (onDisk !== written || written !== received) {
      throw new Error(
        `${temporaryPath} holds ${onDisk} bytes after writing ${written} of ${received} received; the partial file was removed`,
      );
    }
    file = undefined;
    await opened.close();
    await rename(temporaryPath, destinationPath);
    await syncFolder(dirname(destinationPath));
  } catch (error) {
    await file?.close().catch(() => undefined);
    await rm(temporaryPath, { force: true });
    throw error;
  }
  return { bytes: written, sha256: hash.digest('hex') };
}

/** A write that wrote nothing without an error: the disk is full in all but name. */
function noSpace(path: string, written: number): Error {
  return Object.assign(new Error(`no space left on device: writing ${path} stopped after ${written} bytes`), {
    code: 'ENOSPC',
    path,
  });
}

/** Makes the rename durable (best effort: not every platform can fsync a folder). */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open a folder; the file's own fsync still holds.
  }
}
