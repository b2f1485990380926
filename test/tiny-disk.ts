import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A really full disk for tests (#24.3): a tmpfs of a few pages mounted on a fresh temporary folder.
 * Mounting needs root (or CAP_SYS_ADMIN); where it is refused `canMountTinyDisk` is false and the
 * tests that need one are skipped (the injected-writer tests cover the same code everywhere).
 */
export const canMountTinyDisk: boolean = probe();

function probe(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const folder = mkdtempSync(join(tmpdir(), 'runner-tiny-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16k', 'tmpfs', folder], { stdio: 'ignore' });
    execFileSync('umount', [folder], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Mounts a tmpfs of `kilobytes` on a new folder; `unmount()` removes it again. */
export function mountTinyDisk(kilobytes: number): { path: string; unmount(): void } {
  const path = mkdtempSync(join(tmpdir(), 'runner-tiny-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${kilobytes}k,mode=0700`, 'tmpfs', path], {
    stdio: 'ignore',
  });
  return {
    path,
    unmount() {
      execFileSync('umount', ['-l', path], { stdio: 'ignore' });
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/**
 * Fills the disk of `folder` with a file `name` until the disk is full, then gives back `freeBytes`
 * (rounded by the file system to its pages). Returns the filler's path.
 */
export async function fillDisk(folder: string, name: string, freeBytes = 0): Promise<string> {
  const path = join(folder, name);
  const handle = await open(path, 'w');
  const chunk = Buffer.alloc(4096, 0x2e);
  let size = 0;
  try {
    for (;;) {
      const { bytesWritten } = await handle.write(chunk, 0, chunk.length);
      size += bytesWritten;
      if (bytesWritten < chunk.length) break;
    }
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOSPC') throw error;
  }
  await handle.truncate(Math.max(0, size - freeBytes));
  await handle.close();
  return path;
}
