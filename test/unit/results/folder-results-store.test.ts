import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFolderResultsStore } from '../../../src/results/backends/folder/folder-results-store.js';
import type { OpenResultFile } from '../../../src/results/backends/folder/write-atomically.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'runner-results-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

async function* chunks(...parts: (string | Error)[]): AsyncIterable<Uint8Array> {
  for (const part of parts) {
    await Promise.resolve();
    if (part instanceof Error) throw part;
    yield Buffer.from(part);
  }
}

async function readAll(body: AsyncIterable<Uint8Array> | undefined): Promise<string | undefined> {
  if (body === undefined) return undefined;
  const parts: Uint8Array[] = [];
  for await (const chunk of body) parts.push(chunk);
  return Buffer.concat(parts).toString('utf8');
}

describe('the folder results store', () => {
  it('puts a result under its key and gives the size and SHA-256 of the bytes on disk', async () => {
    const store = createFolderResultsStore(join(root, 'out'));
    const stored = await store.put('a/b/hero.png', chunks('hello ', 'world'));
    expect(stored).toEqual({ bytes: 11, sha256: sha256('hello world') });
    expect(await readFile(join(root, 'out/a/b/hero.png'), 'utf8')).toBe('hello world');
    expect(await store.stat('a/b/hero.png')).toEqual(stored);
    expect(await readAll(await store.get('a/b/hero.png'))).toBe('hello world');
    expect(store.localPath('a/b/hero.png')).toBe(join(root, 'out/a/b/hero.png'));
    expect(store.location).toBe(join(root, 'out'));
    // Private: results can be unreleased material.
    expect((await stat(join(root, 'out/a/b/hero.png'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(root, 'out/a'))).mode & 0o777).toBe(0o700);
  });

  it('answers undefined for a key that holds nothing, or holds a folder or a link', async () => {
    const store = createFolderResultsStore(root);
    expect(await store.stat('missing.png')).toBeUndefined();
    expect(await store.get('missing.png')).toBeUndefined();
    expect(await store.stat('missing/deeper.png')).toBeUndefined();
    await mkdir(join(root, 'folder'));
    await writeFile(join(root, 'target.png'), 'x');
    await symlink(join(root, 'target.png'), join(root, 'link.png'));
    expect(await store.stat('folder')).toBeUndefined();
    expect(await store.stat('link.png')).toBeUndefined();
  });

  it('leaves the key as it was when the body throws, and no temporary behind', async () => {
    const store = createFolderResultsStore(root);
    await store.put('hero.png', chunks('first'));
    await expect(store.put('hero.png', chunks('sec', new Error('the download failed')))).rejects.toThrow(
      'the download failed',
    );
    expect(await readFile(join(root, 'hero.png'), 'utf8')).toBe('first');
    await expect(store.put('new.png', chunks('x', new Error('cut')))).rejects.toThrow('cut');
    expect(await store.stat('new.png')).toBeUndefined();
    expect(await readdir(root)).toEqual(['hero.png']);
  });

  it('stops on an aborted signal, leaving nothing', async () => {
    const store = createFolderResultsStore(root);
    const controller = new AbortController();
    async function* body(): AsyncIterable<Uint8Array> {
      yield await Promise.resolve(Buffer.from('a'));
      controller.abort(new Error('interrupted'));
      yield Buffer.from('b');
    }
    await expect(store.put('hero.png', body(), { signal: controller.signal })).rejects.toThrow('interrupted');
    expect(await readdir(root)).toEqual([]);
  });

  it('never records a short write as a whole file: a disk that takes nothing is ENOSPC', async () => {
    const fullDisk: OpenResultFile = () =>
      Promise.resolve({
        write: () => Promise.resolve(0),
        sync: () => Promise.resolve(),
        size: () => Promise.resolve(0),
        close: () => Promise.resolve(),
      });
    const store = createFolderResultsStore(root, { openFile: fullDisk });
    await expect(store.put('hero.png', chunks('data'))).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await store.stat('hero.png')).toBeUndefined();
  });

  it('moves a result under another key (superseded attempts), replacing what was there', async () => {
    const store = createFolderResultsStore(root);
    await store.put('hero.png', chunks('old'));
    await store.move('hero.png', '.superseded/attempt-1/hero.png');
    expect(await store.stat('hero.png')).toBeUndefined();
    expect(await store.stat('.superseded/attempt-1/hero.png')).toEqual({ bytes: 3, sha256: sha256('old') });
    await expect(store.move('hero.png', 'x.png')).rejects.toMatchObject({ code: 'RESULTS_UNREACHABLE' });
  });

  it('never writes or moves through a symbolic link planted in the output folder (#24.9)', async () => {
    const elsewhere = join(root, 'elsewhere');
    const out = join(root, 'out');
    await mkdir(elsewhere);
    await mkdir(out);
    await symlink(elsewhere, join(out, '.superseded'));
    const store = createFolderResultsStore(out);
    await store.put('hero.png', chunks('paid'));
    await expect(store.move('hero.png', '.superseded/attempt-1/hero.png')).rejects.toThrow(
      /is a symbolic link/,
    );
    await expect(store.put('.superseded/x.png', chunks('x'))).rejects.toThrow(/is a symbolic link/);
    expect(await readdir(elsewhere)).toEqual([]);
    expect(await readFile(join(out, 'hero.png'), 'utf8')).toBe('paid');
  });

  it('writes a whole small object, replacing it', async () => {
    const store = createFolderResultsStore(root);
    await store.writeWhole('report.html', '<p>one</p>');
    await store.writeWhole('report.html', new Uint8Array(Buffer.from('<p>two</p>')));
    expect(await readFile(join(root, 'report.html'), 'utf8')).toBe('<p>two</p>');
  });

  it('lists the files directly in a key folder: not its sub-folders, nothing for a missing folder', async () => {
    const store = createFolderResultsStore(join(root, 'out'));
    expect(await store.list('thumbnails')).toEqual([]);
    await store.writeWhole('thumbnails/a.webp', 'a');
    await store.writeWhole('thumbnails/b.webp', 'b');
    await store.writeWhole('thumbnails/deeper/c.webp', 'c');
    await store.writeWhole('hero.png', 'hero');
    expect((await store.list('thumbnails')).sort()).toEqual(['a.webp', 'b.webp']);
  });

  it('sweeps the temporaries a killed writer left, and nothing else', async () => {
    const store = createFolderResultsStore(root);
    await mkdir(join(root, 'sub'));
    await writeFile(join(root, 'hero.png.part-0123456789ab'), 'partial');
    await writeFile(join(root, 'sub/x.mp4.part-ba9876543210'), 'partial');
    await writeFile(join(root, 'job.part-1.png'), 'a result whose job id holds ".part-"');
    await writeFile(join(root, 'hero.png'), 'whole');
    await store.sweepUnfinished();
    expect((await readdir(root)).sort()).toEqual(['hero.png', 'job.part-1.png', 'sub']);
    expect(await readdir(join(root, 'sub'))).toEqual([]);
  });

  it('proves the folder can be written before anything is paid, leaving no probe', async () => {
    const store = createFolderResultsStore(join(root, 'new/out'));
    await store.preflight();
    expect(await readdir(join(root, 'new/out'))).toEqual([]);
    await writeFile(join(root, 'file'), 'x');
    const blocked = createFolderResultsStore(join(root, 'file/out'));
    await expect(blocked.preflight()).rejects.toThrow(/cannot be written.*Nothing was created or paid/);
  });

  it('refuses a key outside the root', async () => {
    const store = createFolderResultsStore(root);
    await expect(store.put('../x.png', chunks('x'))).rejects.toThrow(/Refused the result key/);
    expect(() => store.localPath('/etc/passwd')).toThrow(/Refused the result key/);
    expect((await lstat(root)).isDirectory()).toBe(true);
  });
});
