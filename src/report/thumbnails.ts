import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type Sharp from 'sharp';
import { basename, extname, join } from 'node:path';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../file-modes.js';
import type { SavedResult } from '../execute/options.js';
import { mediaTypeOf, type ReportEntry, type ReportFile } from './report-data.js';

/** The folder inside a run's output folder that holds the thumbnails of its image results. */
export const THUMBNAIL_FOLDER = 'thumbnails';

/**
 * Largest side of a thumbnail, in pixels: a gallery card or a grid tile at its largest, so the page
 * decodes ~300 KB per result instead of the 4–16 MB of a 1K–2K original (#19.4).
 */
export const THUMBNAIL_SIZE = 320;

/** A new file, never through a link at its last part, never over an existing one. */
const CREATE_NO_FOLLOW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** What a thumbnail is made of: a downloaded file with the hash its download recorded. */
export type ThumbnailSource = Pick<ReportFile, 'path' | 'sha256' | 'mediaType'>;

/** The thumbnail made of a file, if any: a lookup the page's renderer can call per file. */
export type ThumbnailLookup = (file: ThumbnailSource) => string | undefined;

/**
 * The name of a file's thumbnail: the result's name and the start of its content hash, so a result
 * replaced by a new attempt (same name, new bytes) never shows the old one's thumbnail.
 */
export function thumbnailNameOf(file: string, sha256: string): string {
  const name = basename(file);
  return `${name.slice(0, name.length - extname(name).length)}.${sha256.slice(0, 12)}.webp`;
}

/**
 * The marker of an image sharp could not read (damaged, or a format it lacks), by the image's content
 * hash: an empty `<sha256>.unreadable` in `thumbnails/`, on disk as in a bucket. Found by the one
 * listing a report makes of the folder (or prefix), it spares reading the image again at every report:
 * the card shows its "no preview" state. A new attempt has new bytes, so a new hash and a fresh try.
 */
export function unreadableMarkerOf(sha256: string): string {
  return `${sha256}.unreadable`;
}

/**
 * Makes the thumbnail of one downloaded image in `<outputDir>/thumbnails/`: WebP, at most
 * {@link THUMBNAIL_SIZE} px a side, never enlarged, turned as its EXIF says. Returns its path, or
 * `undefined` when the file is not an image sharp can read (a video, a damaged file): the page then
 * shows the file itself. Never throws for the file's content; a folder that is a symbolic link, or a
 * write that fails, throws (the caller warns and goes on: a thumbnail is never worth a result).
 *
 * Written as downloads are: a new private temporary in the folder (O_EXCL | O_NOFOLLOW, so a link
 * planted there is never written through), renamed into place (a rename replaces a link, never
 * follows it). sharp is imported here, lazily: `validate`, `plan` and `--help` never load it.
 */
export async function makeThumbnail(
  outputDir: string,
  file: string,
  sha256: string,
): Promise<string | undefined> {
  const folder = await openThumbnailFolder(outputDir);
  const target = join(folder, thumbnailNameOf(file, sha256));
  const image = await encodeThumbnail(file);
  if (image === undefined) return undefined;
  await writeNewFile(folder, target, image);
  return target;
}

/**
 * The thumbnail of an image (a file, or its bytes read from a bucket): WebP, at most
 * {@link THUMBNAIL_SIZE} px a side, never enlarged, turned as its EXIF says; undefined when sharp
 * cannot read it as an image (a video, a damaged file).
 */
export async function encodeThumbnail(image: string | Buffer): Promise<Buffer | undefined> {
  const sharp = loadSharp();
  try {
    return await sharp(image, { failOn: 'error', limitInputPixels: 100_000_000 })
      .rotate()
      .resize({ width: THUMBNAIL_SIZE, height: THUMBNAIL_SIZE, fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 72 })
      .toBuffer();
  } catch {
    return undefined;
  }
}

/**
 * Writes `bytes` as `name` in `<outputDir>/thumbnails/` (a thumbnail, a grid image): a new private
 * temporary in the folder (O_EXCL | O_NOFOLLOW: a link planted there is never written through), then
 * a rename over the name (which replaces a link, never follows it). Returns the file's path.
 */
export async function writeThumbnailFile(outputDir: string, name: string, bytes: Buffer): Promise<string> {
  const folder = await openThumbnailFolder(outputDir);
  const target = join(folder, name);
  await writeNewFile(folder, target, bytes);
  return target;
}

async function writeNewFile(folder: string, target: string, bytes: Buffer): Promise<void> {
  const temporary = join(folder, `.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, CREATE_NO_FOLLOW, PRIVATE_FILE_MODE);
  try {
    await handle.writeFile(bytes);
    await handle.close();
    await rename(temporary, target);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * `ExecuteDeps.afterDownload` for apply: the thumbnail of each image result saved into `outputDir`,
 * made as it arrives (spread over the run, beside the polling, instead of all at the report).
 */
export function thumbnailOnDownload(outputDir: string): (saved: SavedResult) => Promise<void> {
  return async (saved) => {
    if (mediaTypeOf(saved.kind, saved.file) !== 'image') return;
    const made = await makeThumbnail(outputDir, saved.file, saved.sha256);
    if (made === undefined) await markUnreadable(outputDir, saved.sha256);
  };
}

/** Leaves the {@link unreadableMarkerOf} marker; a marker not written only costs a read at the next report. */
async function markUnreadable(outputDir: string, sha256: string): Promise<void> {
  await writeThumbnailFile(outputDir, unreadableMarkerOf(sha256), Buffer.alloc(0)).catch(() => undefined);
}

/**
 * Removes the temporaries a killed process left in `<outputDir>/thumbnails/` (hidden `.*.tmp` files).
 * Called by apply's report, under the run's lock, when no thumbnail of this run is being written.
 */
export async function removeThumbnailTemporaries(outputDir: string): Promise<void> {
  const folder = join(outputDir, THUMBNAIL_FOLDER);
  const names = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith('.') && name.endsWith('.tmp'))
      .map((name) => rm(join(folder, name), { force: true })),
  );
}

/**
 * The thumbnails already in a run's output folder, as a lookup by file (one listing of the folder, so
 * a 100,000-result page asks nothing of the disk per result). A folder that is missing or a link has none.
 */
export async function readThumbnails(outputDir: string): Promise<ThumbnailLookup> {
  return thumbnailLookupOf(join(outputDir, THUMBNAIL_FOLDER), await listThumbnailNames(outputDir));
}

/** The names in `<outputDir>/thumbnails/` (thumbnails, grid images, unreadable markers); none when it is missing or a link. */
async function listThumbnailNames(outputDir: string): Promise<Set<string>> {
  const folder = join(outputDir, THUMBNAIL_FOLDER);
  const names = new Set<string>();
  try {
    if ((await lstat(folder)).isDirectory()) for (const name of await readdir(folder)) names.add(name);
  } catch {
    // No thumbnails yet.
  }
  return names;
}

/**
 * A lookup over the thumbnail names known to exist (a folder's listing, a bucket's): each image's
 * thumbnail as a path in `folder`, which for a bucket is the staging folder laid out as its prefix,
 * so the page links it by its key.
 */
export function thumbnailLookupOf(folder: string, names: ReadonlySet<string>): ThumbnailLookup {
  return (file) => {
    if (file.path === undefined || file.sha256 === undefined || file.mediaType !== 'image') return undefined;
    const name = thumbnailNameOf(file.path, file.sha256);
    return names.has(name) ? join(folder, name) : undefined;
  };
}

/**
 * Makes the thumbnails a run's downloaded images lack (results downloaded before the runner made
 * thumbnails, or whose thumbnail was deleted), a few at a time; `runner report` calls it before
 * writing the page. An image marked unreadable (by apply or an earlier report) is not read again. Returns how many were made, how many files could not be read as images, and how
 * many could not be written (with the first reason): the page shows those results' files instead.
 */
export async function makeMissingThumbnails(
  entries: Iterable<ReportEntry>,
  outputDir: string,
  concurrency = 2,
): Promise<{ made: number; unreadable: number; failed: number; firstError?: string }> {
  const names = await listThumbnailNames(outputDir);
  const have = thumbnailLookupOf(join(outputDir, THUMBNAIL_FOLDER), names);
  const counts: { made: number; unreadable: number; failed: number; firstError?: string } = {
    made: 0,
    unreadable: 0,
    failed: 0,
  };
  const running = new Set<Promise<void>>();
  for (const entry of entries) {
    for (const file of entry.files) {
      const { path, sha256 } = file;
      if (path === undefined || sha256 === undefined || file.mediaType !== 'image') continue;
      if (have(file) !== undefined) continue;
      if (names.has(unreadableMarkerOf(sha256))) {
        counts.unreadable++;
        continue;
      }
      const task = makeThumbnail(outputDir, path, sha256).then(
        async (made) => {
          if (made !== undefined) counts.made++;
          else {
            counts.unreadable++;
            await markUnreadable(outputDir, sha256);
          }
        },
        (error: unknown) => {
          counts.failed++;
          counts.firstError ??= error instanceof Error ? error.message : String(error);
        },
      );
      const tracked = task.finally(() => running.delete(tracked));
      running.add(tracked);
      if (running.size >= concurrency) await Promise.race(running);
    }
  }
  await Promise.all(running);
  return counts;
}

/** `<outputDir>/thumbnails`, made when missing; refused when it is anything but a real folder. */
async function openThumbnailFolder(outputDir: string): Promise<string> {
  const folder = join(outputDir, THUMBNAIL_FOLDER);
  await mkdir(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stats = await lstat(folder);
  if (!stats.isDirectory()) {
    throw new Error(
      `${folder} is ${stats.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: the runner writes thumbnails only into a real folder inside the output folder`,
    );
  }
  return folder;
}

/**
 * sharp, loaded when first needed (never by `validate`, `plan` or `--help`). By `require`, not
 * `import()`: the CLI's bundle runs as a script from V8's code cache, where `import()` has no loader.
 */
export function loadSharp(): typeof Sharp {
  return createRequire(import.meta.url)('sharp') as typeof Sharp;
}
