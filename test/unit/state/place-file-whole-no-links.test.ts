import { describe, it, expect, beforeEach, afterEach, vi } from 'vitest';
import { mkdtemp, open, readdir, readFile, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import type * as FsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeFileWhole } from '../../../src/state/place-file-whole.js';

/**
 * A file system without hard links (some network and FUSE mounts), made to order: while `code` is set,
 * `link` fails with it as such a mount's does, and `calls` counts the links tried. Everything else of
 * `node:fs/promises` is the real thing.
 */
const linkFailure = vi.hoisted(() => ({ code: undefined as string | undefined, calls: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof FsPromises>();
  return {
    ...actual,
    link: (...args: Parameters<typeof actual.link>) => {
      linkFailure.calls++;
      const { code } = linkFailure;
      if (code === undefined) return actual.link(...args);
      return Promise.reject(Object.assign(new Error(`${code}: cannot link '${String(args[0])}'`), { code }));
    },
  };
});

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-place-no-links-'));
  linkFailure.calls = 0;
});
afterEach(async () => {
  linkFailure.code = undefined;
  vi.restoreAllMocks();
  await rm(dir, { recursive: true, force: true });
});

describe.each(['EPERM', 'ENOTSUP', 'EXDEV'])('placeFileWhole where a hard link fails with %s', (code) => {
  beforeEach(() => {
    linkFailure.code = code;
  });

  it('still places the text whole (mode 0600), leaves no temporary, and hands back a handle on the file', async () => {
    const file = join(dir, 'lock');
    const handle = await placeFileWhole(file, 'held\n');
    expect(linkFailure.calls).toBe(1);
    expect(handle).toBeDefined();
    expect(await readdir(dir)).toEqual(['lock']);
    expect(await readFile(file, 'utf8')).toBe('held\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    // The handle is on the placed file itself (the lock refreshes it in place), not on a temporary.
    await handle?.write('HELD', 0);
    await handle?.close();
    expect(await readFile(file, 'utf8')).toBe('HELD\n');
  });

  it('places nothing where a file is, and leaves that file as it was', async () => {
    const file = join(dir, 'lock');
    await writeFile(file, 'theirs');
    await expect(placeFileWhole(file, 'mine')).resolves.toBeUndefined();
    expect(linkFailure.calls).toBe(1);
    expect(await readdir(dir)).toEqual(['lock']);
    expect(await readFile(file, 'utf8')).toBe('theirs');
  });

  it('leaves no file cut short when the write in place fails (a full disk)', async () => {
    const probe = await open(join(dir, 'probe'), 'w');
    const prototype = Object.getPrototypeOf(probe) as FileHandle;
    await probe.close();
    await rm(join(dir, 'probe'));
    const realWrite = prototype.writeFile;
    // The temporary's write goes through; the write of the file in its place fails.
    vi.spyOn(prototype, 'writeFile')
      .mockImplementationOnce(function (this: FileHandle, ...args: Parameters<FileHandle['writeFile']>) {
        return realWrite.apply(this, args);
      })
      .mockRejectedValueOnce(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }));
    await expect(placeFileWhole(join(dir, 'lock'), 'held')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(linkFailure.calls).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('placeFileWhole where a hard link fails for another reason', () => {
  it('throws it and leaves nothing behind: only a file system without hard links gets the fallback', async () => {
    linkFailure.code = 'EIO';
    await expect(placeFileWhole(join(dir, 'lock'), 'held')).rejects.toMatchObject({ code: 'EIO' });
    expect(await readdir(dir)).toEqual([]);
  });
});
