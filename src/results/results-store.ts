/**
 * The one door to where a run's results live (issue #30): a folder on this machine
 * (`backends/folder/`) or an S3-compatible bucket prefix (`backends/s3/`). Downloads, superseded
 * attempts, thumbnails and the report's files go through it; no use case reads or writes the output
 * folder past it, so a bucket can stand in for the folder.
 *
 * Keys, not paths: every result is named by its key, a '/'-separated path relative to the run's output
 * root (`hero.png`, `.superseded/attempt-1/hero.png`, `thumbnails/ab12.webp`). The journal records
 * keys, so any machine can look a result up in its own store (see `./result-key.ts`).
 *
 * What every implementation must guarantee:
 * - **All or nothing.** Nothing is visible under a key until its whole body is stored and durable
 *   (folder: temporary + fsync + rename + folder fsync; S3: a completed put or multipart upload). A body
 *   that throws, an abort, a crash: the key holds what it held before (or nothing), never a prefix.
 * - **Honest figures.** `put` and `stat` give the size and SHA-256 of the bytes the store holds, not of
 *   the bytes sent (a short write, a proxy's framing bytes, a truncated upload must show). S3: the store's echo
 *   of the SHA-256 it was sent (`x-amz-checksum-sha256`), else the ETag (an MD5) of each put, else
 *   the object read back (`backends/s3/stored-proof.ts`).
 * - **Keys stay inside.** A key is checked with {@link checkResultKey} (`./result-key.ts`): no `..`, no
 *   absolute path, no empty segment, no backslash; a folder backend never follows a symbolic link
 *   planted inside its root.
 * - **No secrets.** `location` and every error message name the folder or `s3://bucket/prefix` only,
 *   never credentials.
 * - **Errors are RunnerErrors** naming the store, the key and what to fix: `RESULTS_UNREACHABLE` (exit 1)
 *   for a store that cannot be read or written; a full disk keeps its errno `code` (`ENOSPC`, `EDQUOT`,
 *   `EFBIG`) so the executor stops creating jobs whose results would have nowhere to go.
 * - **One writer per key.** The run's lease keeps other processes of the run off the keys this one
 *   writes; concurrent `put`s to different keys are safe.
 */

/** What is stored under a key: its size and SHA-256 (lowercase hex) as the store holds them. */
export interface StoredResult {
  bytes: number;
  sha256: string;
}

/** Options of {@link ResultsStore.put}. */
export interface PutOptions {
  /** Stops the put: nothing is left under the key, the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The media type to store with the object (S3 `Content-Type`); a folder ignores it. */
  contentType?: string;
  /** The body's size when known (content-length): S3 picks single-part or multipart by it. */
  sizeHint?: number;
}

/** Where a run's results live: a folder on this machine, or an S3-compatible bucket prefix. */
export interface ResultsStore {
  readonly kind: 'folder' | 's3';
  /** For messages and the state: the folder's absolute path, or `s3://bucket/prefix` (never credentials). */
  readonly location: string;
  /**
   * Before the first paid create: proves the store can be written (folder: create it and write then
   * remove a probe file; S3: put then delete a probe object). Throws a RunnerError naming the store and
   * what to fix.
   */
  preflight(): Promise<void>;
  /** What is stored under `key` now, or undefined when nothing is (a folder: a regular file only). */
  stat(key: string): Promise<StoredResult | undefined>;
  /**
   * Streams one result in and returns what is stored. Nothing is visible under `key` until the whole
   * body is stored and durable; a body that throws (download failed, cap exceeded, aborted) leaves
   * `key` as it was, and the error is rethrown as the body threw it. An existing object is replaced.
   */
  put(key: string, body: AsyncIterable<Uint8Array>, options?: PutOptions): Promise<StoredResult>;
  /**
   * The names of the objects directly in the key folder `folder` (`thumbnails`), not in its
   * sub-folders: one listing (S3: ListObjectsV2 pages of 1,000) instead of a `stat` per key, so a
   * report of 5,000 results learns which thumbnails exist in a few requests. Empty when none.
   */
  list(folder: string): Promise<string[]>;
  /** Reads a stored object (thumbnails, the report, `report --out DIR`); undefined when absent. */
  get(key: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /**
   * Moves a stored object to another key (superseded attempts), replacing what `to` held. Throws when
   * `from` holds nothing. Crash-safe in the sense that `to` is never partial: after a crash the object
   * is under `from` or under `to` (S3: copy then delete, so possibly under both for a moment).
   */
  move(from: string, to: string): Promise<void>;
  /** Writes a small whole object (report.html, results.json, thumbnails), replacing it, all or nothing. */
  writeWhole(key: string, data: string | Uint8Array, contentType?: string): Promise<void>;
  /**
   * Removes what a killed writer left: a folder's `*.part-*` temporaries, a bucket's unfinished
   * multipart uploads under the prefix (aborted). Called once a run's lease is held, before its
   * downloads, never while another writer of the same store is running.
   */
  sweepUnfinished(): Promise<void>;
  /**
   * The absolute path of `key` on this machine, for what needs a file (sharp for thumbnails, the
   * report's relative links, messages); undefined for a store that is not a local folder.
   */
  localPath?(key: string): string | undefined;
}
