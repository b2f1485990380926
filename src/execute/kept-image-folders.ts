import { lstat, readdir, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isProcessAlive } from '../process-alive.js';

/**
 * The private folders {@link ImageKeeper} (`./kept-image.ts`) makes under the system's temporary
 * folder are named by their owner, `runner-image-<pid>-<host>-XXXXXX`, so that one a SIGKILL left
 * (its `finally` never ran: up to hundreds of MB of an image) can be told from a live process's and
 * swept by the next apply (#30). The host is in the name because a temporary folder may be shared
 * (a home on NFS, a CI cache): a pid means something only on its own host.
 */
const PREFIX = 'runner-image-';
const NAMED = /^runner-image-(\d+)-(.+)-[A-Za-z0-9]{6}$/;
/** As a5f0dd7 named them, until 00effd9: `mkdtemp`'s six characters only, no owner. */
const UNNAMED = /^runner-image-[A-Za-z0-9]{6}$/;

/**
 * An unnamed folder untouched this long is no live process's. Its process wrote each chunk of the
 * image to the folder's file as it arrived (a download stalls past its 10-minute timeout at most)
 * and used the file afterwards only to make one thumbnail (seconds, a minute for the largest) before
 * removing it: no live process leaves its folder unmodified for an hour. A day leaves room for clocks
 * that disagree (a temporary folder on another host's disk).
 */
export const UNNAMED_STALE_MS = 24 * 60 * 60 * 1000;

/** This host's name as a folder name may hold it (no separator, bounded length). */
const hostPart = (): string =>
  hostname()
    .replace(/[^A-Za-z0-9.-]/g, '_')
    .slice(0, 64) || 'host';

/** The `mkdtemp` prefix of a kept image's folder of this process, in `dir` (the temporary folder). */
export function keptImageFolderPrefix(dir: string = tmpdir()): string {
  return join(dir, `${PREFIX}${process.pid}-${hostPart()}-`);
}

/**
 * Removes the kept images' folders of `dir` (the temporary folder) that a process of this host left
 * when it was killed: named by this host, by a pid that no longer runs, and owned by this user (a
 * folder, not a link). A live process's folder, another host's and another user's are left alone. A
 * folder named as the earlier release named them (no pid to check) is removed only when owned by this
 * user and neither it nor anything in it was modified for {@link UNNAMED_STALE_MS} before `now`.
 * Returns the folders removed. Best effort: a folder that cannot be read or removed is skipped (it is
 * nothing the run needs).
 */
export async function sweepLeftKeptImages(
  dir: string = tmpdir(),
  now: number = Date.now(),
): Promise<string[]> {
  const uid = process.getuid?.();
  if (uid === undefined) return [];
  const host = hostPart();
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.startsWith(PREFIX));
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (UNNAMED.test(name)) {
      const folder = join(dir, name);
      if (await untouchedSince(folder, uid, now - UNNAMED_STALE_MS)) {
        await rm(folder, { recursive: true, force: true }).then(
          () => removed.push(folder),
          () => undefined,
        );
      }
      continue;
    }
    const named = NAMED.exec(name);
    if (named === null || named[2] !== host) continue;
    const pid = Number(named[1]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || isProcessAlive(pid)) continue;
    const folder = join(dir, name);
    try {
      const stats = await lstat(folder);
      if (!stats.isDirectory() || stats.uid !== uid) continue;
      await rm(folder, { recursive: true, force: true });
      removed.push(folder);
    } catch {
      // Gone meanwhile, or not ours to remove.
    }
  }
  return removed;
}

/**
 * Whether `folder` is a folder of this user (not a link) that, and whose entries, were last modified
 * before `before`. False when anything cannot be read.
 */
async function untouchedSince(folder: string, uid: number, before: number): Promise<boolean> {
  try {
    const stats = await lstat(folder);
    if (!stats.isDirectory() || stats.uid !== uid || stats.mtimeMs >= before) return false;
    for (const entry of await readdir(folder)) {
      if ((await lstat(join(folder, entry))).mtimeMs >= before) return false;
    }
    return true;
  } catch {
    return false;
  }
}
