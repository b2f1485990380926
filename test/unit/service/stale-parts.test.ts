import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStalePartSweeper } from '../../../src/service/download.js';

describe('createStalePartSweeper', () => {
  let dir: string;
  let listed: string[];
  const countingReaddir = (directory: string) => {
    listed.push(directory);
    return readdir(directory).catch(() => [] as string[]);
  };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-parts-'));
    listed = [];
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("removes each destination's leftovers, and only those, listing the folder once", async () => {
    await writeFile(join(dir, 'a.png.part-0a1b2c3d4e5f'), 'half');
    await writeFile(join(dir, 'a.png.part-ffffffffffff'), 'half again');
    await writeFile(join(dir, 'b.png.part-0a1b2c3d4e5f'), 'half');
    await writeFile(join(dir, 'c.png.part-0a1b2c3d4e5f'), 'not downloaded in this run');
    await writeFile(join(dir, 'a.png'), 'an earlier result');
    const sweeper = createStalePartSweeper(countingReaddir);
    await Promise.all([
      sweeper.removeStaleParts(join(dir, 'a.png')),
      sweeper.removeStaleParts(join(dir, 'b.png')),
    ]);
    for (let i = 0; i < 50; i++) await sweeper.removeStaleParts(join(dir, `new-${i}.png`));
    expect((await readdir(dir)).sort()).toEqual(['a.png', 'c.png.part-0a1b2c3d4e5f']);
    expect(listed).toEqual([dir]);
  });

  it('lists each folder on its first download, and a missing folder as empty', async () => {
    const sweeper = createStalePartSweeper(countingReaddir);
    const other = join(dir, 'videos');
    await sweeper.removeStaleParts(join(other, 'x.mp4'));
    await mkdir(other);
    await writeFile(join(dir, 'y.png.part-0a1b2c3d4e5f'), 'half');
    await sweeper.removeStaleParts(join(dir, 'y.png'));
    await sweeper.removeStaleParts(join(other, 'z.mp4'));
    expect(listed).toEqual([other, dir]);
    expect(await readdir(dir)).toEqual(['videos']);
  });

  it('matches leftovers by the whole destination name, as a prefix up to ".part-"', async () => {
    await writeFile(join(dir, 'cat.png.part-0a1b2c3d4e5f'), 'half');
    await writeFile(join(dir, 'cat+2.png.part-0a1b2c3d4e5f'), 'the second result');
    const sweeper = createStalePartSweeper(countingReaddir);
    await sweeper.removeStaleParts(join(dir, 'cat.png'));
    expect(await readdir(dir)).toEqual(['cat+2.png.part-0a1b2c3d4e5f']);
  });
});
