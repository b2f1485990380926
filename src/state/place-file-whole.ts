import { randomBytes } from 'node:crypto';
import { link, open, readdir, rename, rm, type FileHandle } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { PRIVATE_FILE_MODE } from '../file-modes.js';
import { isProcessAlive } from '../process-alive.js';

/**
 * Files that say who holds something (an output folder's claim, a state folder's lock) are placed
 * whole: written and fsynced beside their name first, then put in place in one step. A writer killed
 * at any point leaves at most its temporary (`<name>.<host>.<pid>.<random>.tmp`, swept by
 * {@link removeDeadWritersTemporaries}), never a file cut short that every later run would have to
 * judge: an empty or half-written claim or lock reads as "being written right now".
 */

/**
 * Places `text` as `file` unless a file is there: undefined when one is (EEXIST). The step that
 * places it is a hard link, which fails when the name exists; a file system without hard links (some
 * network and FUSE mounts) gets an exclusive create then the text, where a kill between the two
 * leaves an empty file (each caller judges an old empty one abandoned).
 *
 * The handle returned is open on the placed file (the lock rewrites it in place to refresh its
 * time); the caller closes it.
 */
export async function placeFileWhole(file: string, text: string): Promise<FileHandle | undefined> {
  const temporary = join(dirname(file), temporaryName(basename(file)));
  const handle = await writeWhole(temporary, text);
  let placed: 'placed' | 'taken' | 'no hard links' = 'taken';
  try {
    await link(temporary, file);
    placed = 'placed';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (NO_HARD_LINKS.has(code ?? '')) placed = 'no hard links';
    else if (code !== 'EEXIST') throw error;
  } finally {
    if (placed !== 'placed') await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
  }
  if (placed === 'placed') return handle;
  if (placed === 'taken') return undefined;
  try {
    return await writeWhole(file, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw error;
  }
}

/** Replaces `file` with `text` in one step (a rename): for a claim this writer may take over. */
export async function replaceFileWhole(file: string, text: string): Promise<void> {
  const temporary = join(dirname(file), temporaryName(basename(file)));
  try {
    await (await writeWhole(temporary, text)).close();
    await rename(temporary, file);
  } finally {
    await rm(temporary, { force: true });
  }
}

/** Where a hard link cannot be made for what the file system is, not for what the name holds. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * Creates `path` exclusively (a temporary's random name, or the file itself where no hard link can be
 * made) with `text`, fsynced, and returns its open handle. On an error (a full disk) the file goes: a
 * file cut short is what placing whole avoids.
 */
async function writeWhole(path: string, text: string): Promise<FileHandle> {
  const handle = await open(path, 'wx', PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
    return handle;
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(path, { force: true });
    throw error;
  }
}

/** A temporary of `name`, named by its writer so that the temporaries a killed writer left are known. */
function temporaryName(name: string): string {
  return `${name}.${hostname()}.${String(process.pid)}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Removes the temporaries of `file` that writers of this host, killed mid-write, left beside it. */
export async function removeDeadWritersTemporaries(file: string): Promise<void> {
  const dir = dirname(file);
  const prefix = `${basename(file)}.${hostname()}.`;
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    // `<pid>.<random>.tmp` after the prefix: a name with more dots is another file's (`lock.takeover`'s).
    const [pid, random, tmp, ...rest] = name.slice(prefix.length).split('.');
    if (rest.length > 0 || tmp !== 'tmp' || random === undefined) continue;
    const writer = Number(pid);
    if (Number.isInteger(writer) && writer !== process.pid && !isProcessAlive(writer)) {
      await rm(join(dir, name), { force: true });
    }
  }
}
