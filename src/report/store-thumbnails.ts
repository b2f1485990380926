import { isAbsolute, join, relative, sep } from 'node:path';
import type { SavedResult } from '../execute/options.js';
import { joinKey } from '../results/result-key.js';
import type { ResultsStore } from '../results/results-store.js';
import { readStoredWhole } from '../results/read-stored-whole.js';
import { mediaTypeOf, type ReportEntry } from './report-data.js';
import {
  encodeThumbnail,
  THUMBNAIL_FOLDER,
  thumbnailLookupOf,
  thumbnailNameOf,
  unreadableMarkerOf,
  writeThumbnailFile,
  type ThumbnailLookup,
} from './thumbnails.js';

/**
 * An image read from a bucket to make its thumbnail is held whole in memory (sharp reads a buffer):
 * past this size it is not read, and the page shows the result itself. The service's images are a few
 * MB (16 MB for a 4K PNG); this only bounds a stray huge object.
 */
const MAX_IMAGE_BYTES = 128 * 1024 * 1024;

/**
 * Makes the thumbnail of an image stored under `key` in a store that is not a folder of this machine
 * (a bucket, #30.3): read whole, encoded as the folder's thumbnails are, and written whole beside the
 * results under `thumbnails/<name>`, the key the folder layout uses, so the prefix served as a static
 * site shows the gallery from thumbnails. Returns the thumbnail's bytes, or undefined when the object
 * is gone, too large, or not an image sharp can read.
 */
export async function makeStoredThumbnail(
  store: ResultsStore,
  key: string,
  sha256: string,
): Promise<Buffer | undefined> {
  const bytes = await readStoredWhole(store, key, MAX_IMAGE_BYTES);
  if (bytes === undefined || bytes === 'too-large') return undefined;
  return putThumbnailOf(store, key, sha256, bytes);
}

/** The thumbnail of an image's bytes, written whole beside the results under `thumbnails/<name>`. */
async function putThumbnailOf(
  store: ResultsStore,
  key: string,
  sha256: string,
  /** The image's bytes, or a file of this machine holding them. */
  image: Buffer | string,
): Promise<Buffer | undefined> {
  const thumbnail = await encodeThumbnail(image);
  if (thumbnail === undefined) {
    // Remembered, so that no report reads (GETs) the image again; a marker not written costs a read.
    await store
      .writeWhole(joinKey(THUMBNAIL_FOLDER, unreadableMarkerOf(sha256)), Buffer.alloc(0), 'text/plain')
      .catch(() => undefined);
    return undefined;
  }
  await store.writeWhole(joinKey(THUMBNAIL_FOLDER, thumbnailNameOf(key, sha256)), thumbnail, 'image/webp');
  return thumbnail;
}

/**
 * `ExecuteDeps.afterDownload` for a bucket output: each image result's thumbnail made as it is stored
 * (spread over the run, beside the polling, as for a folder), from the bytes the download kept (in
 * memory, or in a private file past 32 MiB): no image is read back from the bucket.
 */
export function thumbnailOnStore(store: ResultsStore): (saved: SavedResult) => Promise<void> {
  return async (saved) => {
    if (mediaTypeOf(saved.kind, saved.key) !== 'image') return;
    // Made from the bytes the download kept as they streamed into the bucket (in memory, or a private
    // file for a large image), else read back.
    const kept = saved.body ?? saved.bodyFile;
    if (kept !== undefined) await putThumbnailOf(store, saved.key, saved.sha256, kept);
    else await makeStoredThumbnail(store, saved.key, saved.sha256);
  };
}

/** What {@link stageStoreThumbnails} found and did. */
export interface StagedThumbnails {
  /** Each image's thumbnail as a path in `<staging>/thumbnails/`: the page links it by its key. */
  lookup: ThumbnailLookup;
  /** Thumbnails the store already held (none made or put again). */
  found: number;
  made: number;
  /** Results that could not be read as images (the page shows the file itself). */
  unreadable: number;
  failed: number;
  firstError?: string;
}

/**
 * The thumbnails of a bucket output's page, before it is written in `staging` (a folder laid out as the
 * prefix; each result's `path` in the entries is under it). The store is listed once (not a HEAD per
 * result); each image result whose thumbnail it lacks (stored before the runner made thumbnails in a
 * bucket, or its thumbnail failed) gets one, read from the store and put beside the results, unless
 * the listing holds its unreadable marker (sharp could not read it before: it is not read again). With
 * `stageAll` (a grid image will be drawn from the thumbnails), each thumbnail is also written into
 * `<staging>/thumbnails/`: those the store held are read from it.
 */
export async function stageStoreThumbnails(
  entries: Iterable<ReportEntry>,
  store: ResultsStore,
  staging: string,
  options: { stageAll: boolean; concurrency?: number },
): Promise<StagedThumbnails> {
  const counts: Omit<StagedThumbnails, 'lookup'> = { found: 0, made: 0, unreadable: 0, failed: 0 };
  const failed = (error: unknown) => {
    counts.failed++;
    counts.firstError ??= error instanceof Error ? error.message : String(error);
  };
  const names = new Set<string>();
  const folder = join(staging, THUMBNAIL_FOLDER);
  let stored: Set<string>;
  try {
    stored = new Set(await store.list(THUMBNAIL_FOLDER));
  } catch (error) {
    failed(error);
    return { ...counts, lookup: thumbnailLookupOf(folder, names) };
  }
  const seen = new Set<string>();
  const running = new Set<Promise<void>>();
  const concurrency = options.concurrency ?? 2;
  for (const entry of entries) {
    for (const file of entry.files) {
      const { path, sha256 } = file;
      if (path === undefined || sha256 === undefined || file.mediaType !== 'image') continue;
      if (file.missing !== undefined) continue;
      const inside = relative(staging, path);
      if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) continue;
      const key = inside.split(sep).join('/');
      const name = thumbnailNameOf(key, sha256);
      if (seen.has(name)) continue;
      seen.add(name);
      if (stored.has(unreadableMarkerOf(sha256)) && !stored.has(name)) {
        counts.unreadable++;
        continue;
      }
      if (stored.has(name)) {
        counts.found++;
        names.add(name);
        if (!options.stageAll) continue;
      }
      const task = stored.has(name)
        ? stageFound(store, staging, name)
        : makeStoredThumbnail(store, key, sha256).then(async (made) => {
            if (made === undefined) {
              counts.unreadable++;
              return;
            }
            counts.made++;
            names.add(name);
            if (options.stageAll) await writeThumbnailFile(staging, name, made);
          });
      const tracked = task.catch(failed).finally(() => running.delete(tracked));
      running.add(tracked);
      if (running.size >= concurrency) await Promise.race(running);
    }
  }
  await Promise.all(running);
  return { ...counts, lookup: thumbnailLookupOf(folder, names) };
}

/** A thumbnail the store holds, read into the staging folder when a grid image needs its file. */
async function stageFound(store: ResultsStore, staging: string, name: string): Promise<void> {
  const bytes = await readStoredWhole(store, joinKey(THUMBNAIL_FOLDER, name));
  if (bytes === undefined || bytes === 'too-large')
    throw new Error(`${store.location}/${THUMBNAIL_FOLDER}/${name} went away while read`);
  await writeThumbnailFile(staging, name, bytes);
}
