import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ImageKeeper, KEPT_IMAGE_BYTES } from '../../../src/execute/kept-image.js';

const MIB = 1024 * 1024;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'runner-kept-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

/** Chunks of `size` bytes, `count` of them, each filled with its own index. */
async function* chunks(count: number, size: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < count; at++) {
    // A network body: each chunk arrives on a later turn.
    await new Promise((resolve) => setImmediate(resolve));
    yield Buffer.alloc(size, at);
  }
}

/** Reads a body through as a store would, returning how many bytes passed. */
async function drain(body: AsyncIterable<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of body) bytes += chunk.byteLength;
  return bytes;
}

/** A private temporary folder of this test, as the CLI's TMPDIR. */
function ownTmp(name: string): string {
  const own = join(dir, name);
  vi.stubEnv('TMPDIR', own);
  return own;
}

describe('ImageKeeper (#30: the thumbnail of a bucket image from its bytes as they streamed)', () => {
  it('keeps a small image in memory, no file', async () => {
    const own = ownTmp('small');
    const keeper = new ImageKeeper(3 * MIB);
    const bytes = await drain(keeper.pass(chunks(3, MIB)));
    const kept = await keeper.take(bytes);
    expect(kept !== undefined && 'body' in kept ? kept.body.length : -1).toBe(3 * MIB);
    await expect(readdir(own)).rejects.toThrow();
  });

  it('writes an image past 32 MiB to a private file as it streams (each chunk before it passes on), removed by discard', async () => {
    const own = ownTmp('large');
    await mkdir(own);
    // No content-length: the first 32 MiB are held, then moved to the file with the rest.
    const keeper = new ImageKeeper();
    const count = KEPT_IMAGE_BYTES / MIB + 8;
    const sizes: number[] = [];
    let bytes = 0;
    for await (const chunk of keeper.pass(chunks(count, MIB))) {
      bytes += chunk.byteLength;
      if (bytes > KEPT_IMAGE_BYTES) {
        const [spill] = await readdir(own);
        sizes.push((await stat(join(own, spill!, 'image'))).size);
      }
    }
    // Once spilled, every chunk is on disk before the store gets it.
    expect(sizes).toEqual(Array.from({ length: 8 }, (_, at) => KEPT_IMAGE_BYTES + (at + 1) * MIB));
    const kept = await keeper.take(bytes);
    expect(kept).toBeDefined();
    const file = kept !== undefined && 'bodyFile' in kept ? kept.bodyFile : '';
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(file))).mode & 0o777).toBe(0o700);
    const written = await readFile(file);
    expect(written.length).toBe(count * MIB);
    expect(written[KEPT_IMAGE_BYTES + 5 * MIB]).toBe(KEPT_IMAGE_BYTES / MIB + 5);
    await keeper.discard();
    expect(await readdir(own)).toEqual([]);
  });

  it('with a content-length past 32 MiB, holds nothing in memory: the first chunk is on disk before it passes', async () => {
    const own = ownTmp('hinted');
    await mkdir(own);
    const keeper = new ImageKeeper(40 * MIB);
    const sizes: number[] = [];
    for await (const chunk of keeper.pass(chunks(2, MIB))) {
      void chunk;
      const [spill] = await readdir(own);
      sizes.push((await stat(join(own, spill!, 'image'))).size);
    }
    expect(sizes).toEqual([MIB, 2 * MIB]);
    await keeper.discard();
    expect(await readdir(own)).toEqual([]);
  });

  it('keeps nothing of a body that failed, or of fewer bytes than stored', async () => {
    const own = ownTmp('failed');
    await mkdir(own);
    async function* broken(): AsyncIterable<Uint8Array> {
      yield* chunks(2, MIB);
      throw new Error('connection reset');
    }
    const failing = new ImageKeeper(40 * MIB);
    await expect(drain(failing.pass(broken()))).rejects.toThrow('connection reset');
    expect(await failing.take(2 * MIB)).toBeUndefined();
    expect(await readdir(own)).toEqual([]);

    const short = new ImageKeeper(40 * MIB);
    const bytes = await drain(short.pass(chunks(2, MIB)));
    expect(await short.take(bytes + 1)).toBeUndefined();
    expect(await readdir(own)).toEqual([]);
  });
});
