import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keptImageFolderPrefix, sweepLeftKeptImages } from '../../../src/execute/kept-image-folders.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runner-kept-folders-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that ran and exited (not running now). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('kept images left by a killed process (#30)', () => {
  it.skipIf(process.getuid === undefined)(
    "sweeps only a dead pid's folder of this host; a live one's, another host's and an old name stay",
    async () => {
      const temporary = join(dir, 'sweep');
      await mkdir(temporary);
      const own = await mkdtemp(keptImageFolderPrefix(temporary));
      const dead = String(deadPid());
      // A folder as a killed runner of this host left it: this process's name with the dead pid.
      const left = join(
        temporary,
        basename(own).replace(`runner-image-${process.pid}-`, `runner-image-${dead}-`),
      );
      await mkdir(left);
      await writeFile(join(left, 'image'), 'left by a SIGKILL');
      const otherHost = `runner-image-${dead}-another-host.example-Ab12Cd`;
      const oldName = 'runner-image-Xy12Zq';
      const notAFolder = `runner-image-${dead}-${basename(own).split('-').slice(3, -1).join('-')}-Qw12Er`;
      await mkdir(join(temporary, otherHost));
      await mkdir(join(temporary, oldName));
      await writeFile(join(temporary, notAFolder), 'a file');

      expect(await sweepLeftKeptImages(temporary)).toEqual([left]);
      expect((await readdir(temporary)).sort()).toEqual(
        [basename(own), otherHost, oldName, notAFolder].sort(),
      );
    },
  );

  it.skipIf(process.getuid === undefined)(
    'sweeps a folder named as the earlier release named them only once it and its file were untouched for a day',
    async () => {
      const temporary = join(dir, 'unnamed');
      await mkdir(temporary);
      // A fixed "now", and times set from it: nothing here depends on the clock.
      const now = Date.UTC(2026, 0, 15, 12);
      const at = async (path: string, ms: number) => utimes(path, new Date(ms), new Date(ms));
      const day = 24 * 60 * 60 * 1000;
      const stale = now - day - 60_000;
      const fresh = now - day + 60_000;
      /** An old-form folder holding an image, the image modified at `fileMs`, the folder at `folderMs`. */
      const folder = async (name: string, folderMs: number, fileMs: number) => {
        const path = join(temporary, name);
        await mkdir(path);
        await writeFile(join(path, 'image'), 'bytes of an image');
        await at(join(path, 'image'), fileMs);
        await at(path, folderMs);
        return path;
      };
      const left = await folder('runner-image-Ab12Cd', stale, stale);
      await folder('runner-image-Fr3sh1', fresh, fresh);
      // A download still writing to its file (a folder's mtime does not move when a file in it grows).
      await folder('runner-image-Wr1te5', stale, fresh);
      const emptyLeft = join(temporary, 'runner-image-Empty0');
      await mkdir(emptyLeft);
      await at(emptyLeft, stale);
      // A link of the old name to a stale folder elsewhere: not this process's to follow.
      const elsewhere = await folder('elsewhere', stale, stale);
      await symlink(elsewhere, join(temporary, 'runner-image-L1nk00'));

      expect((await sweepLeftKeptImages(temporary, now)).sort()).toEqual([left, emptyLeft].sort());
      expect((await readdir(temporary)).sort()).toEqual(
        ['elsewhere', 'runner-image-Fr3sh1', 'runner-image-L1nk00', 'runner-image-Wr1te5'].sort(),
      );
      expect(await readdir(elsewhere)).toEqual(['image']);
    },
  );

  it('names a folder by this process', () => {
    expect(basename(keptImageFolderPrefix(dir))).toMatch(new RegExp(`^runner-image-${process.pid}-.+-$`));
  });
});
