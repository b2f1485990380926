import { randomBytes } from 'node:crypto';
import { createReadStream, type Dirent, type Stats } from 'node:fs';
import { lstat, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { RunnerError } from '../../../errors.js';
import { PRIVATE_DIR_MODE } from '../../../file-modes.js';
import { checkResultKey, keyFolder } from '../../result-key.js';
import type { PutOptions, ResultsStore, StoredResult } from '../../results-store.js';
import { hashFile } from './hash-file.js';
import {
  openResultFile,
  PART_PATTERN,
  syncFolder,
  writeAtomically,
  type OpenResultFile,
} from './write-atomically.js';

/** A results store in a folder of this machine: `localPath` always answers. */
export interface FolderResultsStore extends ResultsStore {
  readonly kind: 'folder';
  localPath(key: string): string;
}

export interface FolderResultsStoreOptions {
  /** Opens a temporary for writing. @default {@link openResultFile} (node:fs) */
  openFile?: OpenResultFile;
}

/**
 * The results store of an output folder on this machine (`root`, made absolute). Puts are crash-safe
 * (temporary, fsync, rename, folder fsync); folders inside the root are made private (0700) and never
 * taken through a symbolic link, so a link planted in the output folder (`.superseded`, `thumbnails`)
 * cannot send paid results elsewhere (issue #24.9).
 */
export function createFolderResultsStore(
  root: string,
  options: FolderResultsStoreOptions = {},
): FolderResultsStore {
  const location = resolve(root);
  const openFile = options.openFile ?? openResultFile;
  /** Folders (keys) already made and checked by this process. */
  const made = new Set<string>();

  const pathOf = (key: string): string => join(location, ...checkResultKey(key).split('/'));

  const makeParents = async (key: string): Promise<void> => {
    const folder = keyFolder(key);
    if (made.has(folder)) return;
    await mkdir(location, { recursive: true, mode: PRIVATE_DIR_MODE });
    let path = location;
    let sub = '';
    for (const segment of folder === '' ? [] : folder.split('/')) {
      path = join(path, segment);
      sub = sub === '' ? segment : `${sub}/${segment}`;
      if (!made.has(sub)) await makeRealFolder(path);
      made.add(sub);
    }
    made.add(folder);
  };

  const put = async (
    key: string,
    body: AsyncIterable<Uint8Array>,
    putOptions?: PutOptions,
  ): Promise<StoredResult> => {
    const path = pathOf(key);
    await makeParents(key);
    return writeAtomically(path, body, openFile, putOptions?.signal);
  };

  return {
    kind: 'folder',
    location,

    localPath: pathOf,

    async preflight() {
      const probe = join(location, `.runner-probe-${randomBytes(6).toString('hex')}`);
      try {
        await mkdir(location, { recursive: true, mode: PRIVATE_DIR_MODE });
        const handle = await openFile(probe);
        await handle.close();
      } catch (error) {
        throw new RunnerError(
          'INVALID_INPUT',
          `The output folder ${location} cannot be written: ${(error as Error).message}. Nothing was created or paid.`,
          { cause: error, hint: 'Name a folder this user can write (--output) and run again.' },
        );
      } finally {
        await rm(probe, { force: true }).catch(() => undefined);
      }
    },

    async stat(key) {
      const path = pathOf(key);
      const found = await lstatIfAny(path);
      if (found === undefined || !found.isFile()) return undefined;
      return hashFile(path);
    },

    put,

    async list(folder) {
      const path = pathOf(folder);
      const found = await lstatIfAny(path);
      if (found === undefined || !found.isDirectory()) return [];
      const entries = await readdir(path, { withFileTypes: true });
      return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
    },

    async get(key) {
      const path = pathOf(key);
      const found = await lstatIfAny(path);
      if (found === undefined || !found.isFile()) return undefined;
      return createReadStream(path) as AsyncIterable<Uint8Array>;
    },

    async move(from, to) {
      const source = pathOf(from);
      const target = pathOf(to);
      const found = await lstatIfAny(source);
      if (found === undefined || !found.isFile()) {
        throw new RunnerError('RESULTS_UNREACHABLE', `Cannot move ${source}: there is no file there.`);
      }
      await makeParents(to);
      await rename(source, target);
      await syncFolder(join(target, '..'));
      await syncFolder(join(source, '..'));
    },

    async writeWhole(key, data) {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      await put(key, oneChunk(bytes));
    },

    async sweepUnfinished() {
      await removeParts(location);
    },
  };
}

function oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  return Readable.from([bytes], { objectMode: false }) as AsyncIterable<Uint8Array>;
}

async function lstatIfAny(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/**
 * Makes a folder, or takes the one there, never through a symbolic link: a link planted in the output
 * folder would move paid results wherever it points (issue #24.9).
 */
async function makeRealFolder(path: string): Promise<void> {
  try {
    await mkdir(path, { mode: PRIVATE_DIR_MODE });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const found = await lstat(path);
  if (found.isSymbolicLink() || !found.isDirectory()) {
    throw new RunnerError(
      'INVALID_INPUT',
      `${path} ${found.isSymbolicLink() ? 'is a symbolic link' : 'is not a folder'}: results are not written through it; remove it and run apply again`,
    );
  }
}

/** Removes every `*.part-<hex>` temporary under `folder`, never following a link. */
async function removeParts(folder: string): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) await removeParts(path);
    else if (entry.isFile() && PART_PATTERN.test(entry.name)) await rm(path, { force: true });
  }
}
