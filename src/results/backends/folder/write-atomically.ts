import { createHash, randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PRIVATE_FILE_MODE } from '../../../file-modes.js';
import type { StoredResult } from '../../results-store.js';

/** The writes a put makes: a seam so tests can fill the disk (ENOSPC) without a full disk. */
export interface ResultFileHandle {
  /** Writes from `data[offset, offset + length)` at the end; resolves with the bytes written (maybe fewer). */
  write(data: Uint8Array, offset: number, length: number): Promise<number>;
  sync(): Promise<void>;
  /** The file's size on disk now. */
  size(): Promise<number>;
  close(): Promise<void>;
}

export type OpenResultFile = (path: string) => Promise<ResultFileHandle>;

/** {@link OpenResultFile} over node:fs: a new private file (mode 0600), never an existing one or a link. */
export const openResultFile: OpenResultFile = async (path) => {
  const handle = await open(path, 'wx', PRIVATE_FILE_MODE);
  return {
    write: async (data, offset, length) => (await handle.write(data, offset, length)).bytesWritten,
    sync: () => handle.sync(),
    size: async () => (await handle.stat()).size,
    close: () => handle.close(),
  };
};

/** What marks a temporary: `<name>.part-<12 hex>`. Result names end in a media extension, never so. */
export const PART_PATTERN = /\.part-[0-9a-f]{12}$/;

/**
 * Writes `body` into a temporary sibling of `path`, fsyncs it, checks that the file on disk holds every
 * byte, renames it into place and fsyncs the folder. The hash covers the bytes the writes reported
 * written, so a short write can never be recorded as a whole file (issue #24.3). On any error (the
 * body's own, a write's, an abort) the temporary goes and `path` is left as it was.
 */
export async function writeAtomically(
  path: string,
  body: AsyncIterable<Uint8Array>,
  openFile: OpenResultFile,
  signal?: AbortSignal,
): Promise<StoredResult> {
  const temporaryPath = `${path}.part-${randomBytes(6).toString('hex')}`;
  const hash = createHash('sha256');
  let written = 0;
  let file: ResultFileHandle | undefined;
  try {
    signal?.throwIfAborted();
    file = await openFile(temporaryPath);
    for await (const chunk of body) {
      signal?.throwIfAborted();
      for (let offset = 0; offset < chunk.byteLength;) {
        const count = await file.write(chunk, offset, chunk.byteLength - offset);
        if (!(count > 0)) throw noSpace(temporaryPath, written);
        hash.update(chunk.subarray(offset, offset + count));
        offset += count;
        written += count;
      }
    }
    signal?.throwIfAborted();
    await file.sync();
    const onDisk = await file.size();
    if (onDisk !== written) {
      throw new Error(
        `${temporaryPath} holds ${onDisk} bytes after writing ${written}; the partial file was removed`,
      );
    }
    const done = file;
    file = undefined;
    await done.close();
    await rename(temporaryPath, path);
    await syncFolder(dirname(path));
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

/** Makes a rename durable (best effort: not every platform can fsync a folder). */
export async function syncFolder(folder: string): Promise<void> {
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
