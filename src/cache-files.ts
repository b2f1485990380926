import { mkdirSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './file-modes.js';

/**
 * Files of the runner's per-user cache folder (src/cli/cache-dir.ts): code kept between runs, so it
 * is read back only from a folder no one else can write to, written whole, and removed when unused.
 * Nothing here throws: a cache that cannot be used is only slower.
 */

/** How long a cache file is kept after it was last written. */
export const CACHE_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Creates the folder (0700) when missing, and says whether code may be read from it: on POSIX
 * systems it must belong to this user and be writable by no one else, since what it holds is run.
 * Windows has no such mode bits; a folder under the user's profile is private there already.
 */
export function isPrivateFolder(dir: string): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const stats = statSync(dir);
    if (!stats.isDirectory()) return false;
    if (process.platform === 'win32' || process.getuid === undefined) return true;
    return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/**
 * Writes the file whole (0600, a temporary file renamed over it), so a reader in another process sees
 * the old file, none, or the new one. Says whether it was written.
 */
export function writeFileWhole(file: string, data: string | Uint8Array): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, data, { mode: PRIVATE_FILE_MODE });
    renameSync(temporary, file);
    return true;
  } catch {
    try {
      unlinkSync(temporary);
    } catch {
      // Never written.
    }
    return false;
  }
}

/**
 * Removes the files of `dir` whose names end with one of `suffixes` (and temporary files a crash
 * left) not written for {@link CACHE_MAX_AGE_MS}.
 */
export function removeUnused(dir: string, suffixes: readonly string[]): void {
  const now = Date.now();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.endsWith('.tmp') && !suffixes.some((suffix) => name.endsWith(suffix))) continue;
    try {
      const path = join(dir, name);
      if (now - statSync(path).mtimeMs > CACHE_MAX_AGE_MS) unlinkSync(path);
    } catch {
      // Removed by another process meanwhile, or not ours to remove.
    }
  }
}
