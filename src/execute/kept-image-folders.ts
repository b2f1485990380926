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
 * folder, not a link). A live process's folder, another host's, another user's, and one named as
 * earlier releases named them (no owner to check) are left alone. Returns the folders removed. Best
 * effort: a folder that cannot be read or removed is skipped (it is nothing the run needs).
 */
export async function sweepLeftKeptImages(dir: string = tmpdir()): Promise<string[]> {
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
