import { describe, it, expect, beforeEach, afterEach, vi } from 'vitest';
import { mkdtemp, open, readdir, readFile, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  placeFileWhole,
  removeDeadWritersTemporaries,
  replaceFileWhole,
} from '../../../src/state/place-file-whole.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-place-'));
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe('placeFileWhole', () => {
  it('places the text whole (mode 0600), leaves no temporary, and hands back a handle on the file', async () => {
    const file = join(dir, 'lock');
    const handle = await placeFileWhole(file, 'held\n');
    expect(handle).toBeDefined();
    expect(await readdir(dir)).toEqual(['lock']);
    expect(await readFile(file, 'utf8')).toBe('held\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await handle?.write('HELD', 0);
    await handle?.close();
    expect(await readFile(file, 'utf8')).toBe('HELD\n');
  });

  it('places nothing where a file is, and leaves that file as it was', async () => {
    const file = join(dir, 'lock');
    await writeFile(file, 'theirs');
    await expect(placeFileWhole(file, 'mine')).resolves.toBeUndefined();
    expect(await readdir(dir)).toEqual(['lock']);
    expect(await readFile(file, 'utf8')).toBe('theirs');
  });

  it('leaves nothing behind when the write fails (a full disk)', async () => {
    const probe = await open(join(dir, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    await rm(join(dir, 'probe'));
    vi.spyOn(prototype, 'writeFile').mockRejectedValueOnce(
      Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }),
    );
    await expect(placeFileWhole(join(dir, 'lock'), 'held')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('replaceFileWhole', () => {
  it('replaces a file in one step and leaves no temporary', async () => {
    const file = join(dir, 'claim');
    await writeFile(file, 'old');
    await replaceFileWhole(file, 'new');
    expect(await readdir(dir)).toEqual(['claim']);
    expect(await readFile(file, 'utf8')).toBe('new');
  });
});

describe('removeDeadWritersTemporaries', () => {
  it("removes only the temporaries of that file's dead writers on this host", async () => {
    const file = join(dir, 'lock');
    const dead = `lock.${hostname()}.999999999.0badf00d.tmp`;
    const live = `lock.${hostname()}.${String(process.pid)}.0badf00d.tmp`;
    const otherHost = 'lock.elsewhere.999999999.0badf00d.tmp';
    const otherFile = `lock.takeover.${hostname()}.999999999.0badf00d.tmp`;
    for (const name of [dead, live, otherHost, otherFile]) await writeFile(join(dir, name), '{');
    await removeDeadWritersTemporaries(file);
    expect((await readdir(dir)).sort()).toEqual([live, otherHost, otherFile].sort());
  });
});
