import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, writeFile } from 'node:fs/promises';
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

  it('names a folder by this process', () => {
    expect(basename(keptImageFolderPrefix(dir))).toMatch(new RegExp(`^runner-image-${process.pid}-.+-$`));
  });
});
