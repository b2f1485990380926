import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  makeMissingThumbnails,
  makeThumbnail,
  readThumbnails,
  removeThumbnailTemporaries,
  thumbnailNameOf,
  thumbnailOnDownload,
  THUMBNAIL_FOLDER,
  unreadableMarkerOf,
} from '../../../src/report/thumbnails.js';
import { renderPng } from '../../../src/simulator/media.js';
import { renderMp4 } from '../../../src/simulator/video.js';
import { brokenPng, imageEntry } from '../../report-entry.js';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('thumbnails', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-thumbs-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** A 1280 × 720 PNG (larger than a thumbnail) at `name`, with its hash. */
  async function bigImage(name: string): Promise<{ path: string; sha256: string }> {
    const bytes = await sharp({ create: { width: 1280, height: 720, channels: 3, background: '#3366aa' } })
      .png()
      .toBuffer();
    const path = join(dir, name);
    await writeFile(path, bytes);
    return { path, sha256: sha(bytes) };
  }

  it('makes a WebP of at most 320 px a side in the output folder, named by the result and its hash', async () => {
    const { path, sha256 } = await bigImage('ad-latte.png');
    const made = await makeThumbnail(dir, path, sha256);
    expect(made).toBe(join(dir, THUMBNAIL_FOLDER, `ad-latte.${sha256.slice(0, 12)}.webp`));
    const meta = await sharp(made).metadata();
    expect(meta).toMatchObject({ format: 'webp', width: 320, height: 180 });
    expect((await lstat(made ?? '')).mode & 0o777).toBe(0o600);
    // No temporary is left beside it.
    expect(await readdir(join(dir, THUMBNAIL_FOLDER))).toEqual([`ad-latte.${sha256.slice(0, 12)}.webp`]);
  });

  it('never enlarges a small image', async () => {
    const bytes = renderPng({ label: 'x', prompt: 'x', aspectRatio: '16:9' });
    await writeFile(join(dir, 'small.png'), bytes);
    const made = await makeThumbnail(dir, join(dir, 'small.png'), sha(bytes));
    expect(await sharp(made).metadata()).toMatchObject({ width: 256, height: 144 });
  });

  it('makes none of a video or a file that is not an image', async () => {
    const video = renderMp4({ label: 'clip' });
    await writeFile(join(dir, 'teaser.mp4'), video);
    expect(await makeThumbnail(dir, join(dir, 'teaser.mp4'), sha(video))).toBeUndefined();
    await writeFile(join(dir, 'broken.png'), 'not a png');
    expect(await makeThumbnail(dir, join(dir, 'broken.png'), 'a'.repeat(64))).toBeUndefined();
    expect(await readdir(join(dir, THUMBNAIL_FOLDER))).toEqual([]);
  });

  it('remembers an image it cannot read by its hash: the next report does not read it again', async () => {
    const broken = brokenPng();
    const path = join(dir, 'broken.png');
    await writeFile(path, broken.bytes);
    const entries = [
      imageEntry('broken', [{ index: 1, url: 'u', path, sha256: broken.sha256, mediaType: 'image' }]),
    ];
    expect(await makeMissingThumbnails(entries, dir)).toEqual({ made: 0, unreadable: 1, failed: 0 });
    expect(await readdir(join(dir, THUMBNAIL_FOLDER))).toEqual([unreadableMarkerOf(broken.sha256)]);
    // Were the file read again, these bytes (a good image) would give a thumbnail: none is made.
    await writeFile(path, await readFile((await bigImage('good.png')).path));
    expect(await makeMissingThumbnails(entries, dir)).toEqual({ made: 0, unreadable: 1, failed: 0 });
    expect(await readdir(join(dir, THUMBNAIL_FOLDER))).toEqual([unreadableMarkerOf(broken.sha256)]);
  });

  it('on download, marks an image it cannot read', async () => {
    const broken = Buffer.from('GIF89a but nothing more');
    await writeFile(join(dir, 'odd.png'), broken);
    await thumbnailOnDownload(dir)({
      id: 'odd',
      kind: 'image',
      file: join(dir, 'odd.png'),
      key: 'odd.png',
      sha256: sha(broken),
    });
    expect(await readdir(join(dir, THUMBNAIL_FOLDER))).toEqual([unreadableMarkerOf(sha(broken))]);
  });

  it('refuses a thumbnails folder that is a symbolic link, and replaces a link at its name without following it', async () => {
    const { path, sha256 } = await bigImage('ad.png');
    const elsewhere = join(dir, 'elsewhere');
    await mkdir(elsewhere);
    const out = join(dir, 'out');
    await mkdir(out);
    await symlink(elsewhere, join(out, THUMBNAIL_FOLDER));
    await expect(makeThumbnail(out, path, sha256)).rejects.toThrow(/symbolic link/);
    expect(await readdir(elsewhere)).toEqual([]);

    await rm(join(out, THUMBNAIL_FOLDER));
    await mkdir(join(out, THUMBNAIL_FOLDER));
    const victim = join(dir, 'victim.txt');
    await writeFile(victim, 'keep me');
    const name = join(out, THUMBNAIL_FOLDER, thumbnailNameOf(path, sha256));
    await symlink(victim, name);
    await makeThumbnail(out, path, sha256);
    expect(await readFile(victim, 'utf8')).toBe('keep me');
    expect((await lstat(name)).isSymbolicLink()).toBe(false);
  });

  it('looks thumbnails up by file and hash from one listing; a result replaced by new bytes has none', async () => {
    const { path, sha256 } = await bigImage('ad.png');
    await makeThumbnail(dir, path, sha256);
    const lookup = await readThumbnails(dir);
    expect(lookup({ path, sha256, mediaType: 'image' })).toBe(
      join(dir, THUMBNAIL_FOLDER, thumbnailNameOf(path, sha256)),
    );
    expect(lookup({ path, sha256: 'b'.repeat(64), mediaType: 'image' })).toBeUndefined();
    expect(lookup({ path, mediaType: 'image' })).toBeUndefined();
    expect(lookup({ sha256, mediaType: 'image' })).toBeUndefined();
    expect((await readThumbnails(join(dir, 'none')))({ path, sha256, mediaType: 'image' })).toBeUndefined();
  });

  it('makes the missing ones of a run (results saved before thumbnails), skipping videos and remote results', async () => {
    const first = await bigImage('a.png');
    const second = await bigImage('b.png');
    await makeThumbnail(dir, first.path, first.sha256);
    const video = renderMp4({ label: 'clip' });
    await writeFile(join(dir, 'v.mp4'), video);
    const entries = [
      imageEntry('a', [{ index: 1, url: 'u', ...first, mediaType: 'image' }]),
      imageEntry('b', [{ index: 1, url: 'u', ...second, mediaType: 'image' }]),
      imageEntry('v', [
        { index: 1, url: 'u', path: join(dir, 'v.mp4'), sha256: sha(video), mediaType: 'video' },
      ]),
      imageEntry('remote', [{ index: 1, url: 'https://r/x.png', mediaType: 'image' }]),
    ];
    expect(await makeMissingThumbnails(entries, dir)).toEqual({ made: 1, unreadable: 0, failed: 0 });
    expect((await readdir(join(dir, THUMBNAIL_FOLDER))).sort()).toEqual(
      [thumbnailNameOf(first.path, first.sha256), thumbnailNameOf(second.path, second.sha256)].sort(),
    );
  });

  it('removes the temporaries a killed process left, and nothing else', async () => {
    const { path, sha256 } = await bigImage('ad.png');
    await makeThumbnail(dir, path, sha256);
    await writeFile(join(dir, THUMBNAIL_FOLDER, '.a1b2c3.tmp'), 'half a webp');
    await removeThumbnailTemporaries(dir);
    expect(await readdir(join(dir, THUMBNAIL_FOLDER))).toEqual([thumbnailNameOf(path, sha256)]);
    await removeThumbnailTemporaries(join(dir, 'none'));
  });

  it('on download, makes the thumbnail of an image result and leaves a video alone', async () => {
    const { path, sha256 } = await bigImage('job.png');
    const after = thumbnailOnDownload(dir);
    await after({ id: 'job', kind: 'image', file: path, key: 'job.png', sha256 });
    await after({
      id: 'clip',
      kind: 'voiceover-video',
      file: join(dir, 'clip.mp4'),
      key: 'clip.mp4',
      sha256,
    });
    expect(await readdir(join(dir, THUMBNAIL_FOLDER))).toEqual([thumbnailNameOf(path, sha256)]);
  });
});
