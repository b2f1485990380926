import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openUploadCache } from '../../../src/state/upload-cache.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-uploads-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openUploadCache', () => {
  it('persists URLs across opens with mode 0600 and leaves no temp file', async () => {
    const path = join(dir, 'uploads.json');
    const cache = await openUploadCache(path);
    expect(cache.get('abc')).toBeUndefined();
    await Promise.all([cache.set('abc', 'https://blob/1'), cache.set('def', 'https://blob/2')]);
    const again = await openUploadCache(path);
    expect(again.get('abc')).toBe('https://blob/1');
    expect(again.get('def')).toBe('https://blob/2');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['uploads.json']);
  });

  it('rejects a file that is not a cache', async () => {
    const path = join(dir, 'uploads.json');
    await writeFile(path, '[1,2]');
    await expect(openUploadCache(path)).rejects.toMatchObject({ code: 'STATE_CORRUPT' });
  });
});
