/**
 * The results store in an S3-compatible bucket (`--output s3://bucket/prefix`). Loaded only when such
 * an output is used (see ../../s3-results.ts): the SDK is ~150 packages a folder output never needs.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { RunnerError } from '../../../errors.js';
import type { ResultsStore, StoredResult } from '../../results-store.js';
import { BodyDigest } from './body-digest.js';
import { uploadParts, type Part } from './multipart-upload.js';
import { PartBuffers, partsOf } from './part-buffers.js';
import { createS3Client, type S3ClientOptions } from './s3-client.js';
import { signPayloadHashes } from './payload-hash.js';
import { describeS3Error } from './s3-errors.js';
import { objectKeyOf, type S3Location } from './s3-location.js';
import { notAsSent, proofOf } from './stored-proof.js';
import { abortUnfinishedUploads, unfinishedSnapshot } from './unfinished-uploads.js';

/** How the store uploads; every field has a production default. */
export interface S3StoreOptions extends S3ClientOptions {
  /**
   * A body up to this size is one PutObject (buffered, its SHA-256 sent for the store to check); a
   * larger one is a multipart upload in parts of this size. Memory stays near
   * `partSize × (queueSize + 1)` whatever the body's size. @default 8 MiB (S3's floor is 5 MiB)
   */
  partSize?: number;
  /** Parts uploaded at once. @default 4 */
  queueSize?: number;
  /**
   * sweepUnfinished() aborts only uploads started this long ago: longer than a download may take
   * (10 minutes), so another machine's upload in progress on the same prefix is left alone.
   * @default 20 minutes
   */
  staleUploadMs?: number;
  /** The clock the staleness is judged by. @default Date.now */
  now?: () => number;
  /** The SDK client (tests); @default {@link createS3Client} from the standard AWS configuration. */
  client?: S3Client;
}

/** An S3 results store, and `close()` to end its connections. */
export interface S3ResultsStore extends ResultsStore {
  close(): void;
}

const MIB = 1024 * 1024;
/** The object's SHA-256 (hex) as user metadata (`x-amz-meta-sha256`), so that stat() needs no read. */
const SHA256_META = 'sha256';

export function createS3ResultsStore(location: S3Location, options: S3StoreOptions = {}): S3ResultsStore {
  const client = options.client ?? createS3Client(options);
  signPayloadHashes(client);
  const partSize = Math.max(options.partSize ?? 8 * MIB, 5 * MIB);
  const Bucket = location.bucket;
  const queueSize = options.queueSize ?? 4;
  const buffers = new PartBuffers(partSize, queueSize);
  const fail = (doing: string, error: unknown) => describeS3Error(location, doing, error);
  const stale = unfinishedSnapshot(client, location);

  /**
   * One PutObject of a whole buffered body, its SHA-256 sent as the object's checksum and as SigV4's
   * payload hash (./payload-hash.ts), the store's answer judged by ./stored-proof.ts. `digest` is the body's, measured as
   * it streamed in (hashing it again cost 46 ms of CPU per 5 MB).
   */
  async function putWhole(
    Key: string,
    data: Buffer,
    contentType: string | undefined,
    digest: BodyDigest = measured(data),
  ): Promise<StoredResult> {
    const { bytes, sha256 } = digest.finish();
    const command = new PutObjectCommand({
      Bucket,
      Key,
      Body: data,
      ContentLength: bytes,
      ChecksumSHA256: sha256.toString('base64'),
      Metadata: { [SHA256_META]: sha256.toString('hex') },
      ...(contentType === undefined ? {} : { ContentType: contentType }),
    });
    const answer = await client.send(command);
    const stored = { bytes, sha256: sha256.toString('hex') };
    let proof;
    try {
      proof = proofOf(
        { body: data, sha256, echoed: answer.ChecksumSHA256, etag: answer.ETag },
        `the object ${Key}`,
        location.display,
      );
    } catch (error) {
      await forget(Key);
      throw error;
    }
    if (proof === 'none') await readBack(Key, stored);
    return stored;
  }

  function measured(data: Buffer): BodyDigest {
    const digest = new BodyDigest();
    digest.add(data);
    return digest;
  }

  /**
   * An object the store kept other than as sent is removed (best effort), so that nothing finds it
   * under its key with the checksum it was sent as metadata.
   */
  async function forget(Key: string): Promise<void> {
    await client.send(new DeleteObjectCommand({ Bucket, Key })).catch(() => undefined);
  }

  /**
   * The proof of a store whose answer proved nothing (no checksum echoed, an ETag that is no MD5):
   * the object read back and hashed, so that nothing is called stored that nothing verified.
   */
  async function readBack(Key: string, sent: StoredResult): Promise<void> {
    const answer = await client.send(new GetObjectCommand({ Bucket, Key }));
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of (answer.Body as AsyncIterable<Uint8Array> | undefined) ?? []) {
      hash.update(chunk);
      bytes += chunk.byteLength;
    }
    const got = hash.digest('hex');
    if (bytes === sent.bytes && got === sent.sha256) return;
    await forget(Key);
    throw notAsSent(
      location.display,
      `the object ${Key}`,
      `read back: ${bytes} bytes of SHA-256 ${got}, expected ${sent.bytes} of ${sent.sha256}`,
    );
  }

  async function putMultipart(
    Key: string,
    parts: AsyncIterable<Part>,
    digest: BodyDigest,
    contentType: string | undefined,
  ): Promise<StoredResult> {
    // Each part is proved by the store's echo of its SHA-256, or its ETag (./multipart-upload.ts).
    const uploaded = await uploadParts(
      client,
      { Bucket, Key, ContentType: contentType, display: location.display, queueSize },
      parts,
    );
    const { bytes, sha256 } = digest.finish();
    // The SHA-256 is known only now: it becomes the object's metadata by a copy onto itself (no bytes
    // move on the client side). A process killed before this leaves an object stat() measures.
    await client.send(
      new CopyObjectCommand({
        Bucket,
        Key,
        CopySource: copySource(Bucket, Key),
        MetadataDirective: 'REPLACE',
        Metadata: { [SHA256_META]: sha256.toString('hex') },
        ...(contentType === undefined ? {} : { ContentType: contentType }),
      }),
    );
    const head = await client.send(new HeadObjectCommand({ Bucket, Key }));
    if (head.ContentLength !== bytes) {
      throw new RunnerError(
        'RESULTS_UNREACHABLE',
        `${location.display}: the object ${Key} holds ${head.ContentLength ?? '?'} bytes after its upload, not the ${bytes} sent.`,
        { hint: 'Run the command again to upload it again.' },
      );
    }
    const stored = { bytes, sha256: sha256.toString('hex') };
    if (uploaded.unproven > 0) await readBack(Key, stored);
    return stored;
  }

  const store: S3ResultsStore = {
    kind: 's3',
    location: location.display,

    async preflight() {
      const Key = objectKeyOf(location, `.runner-probe-${randomBytes(6).toString('hex')}`);
      try {
        await putWhole(Key, Buffer.from('runner write probe\n'), 'text/plain');
      } catch (error) {
        throw fail('write a probe object', error);
      }
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key }));
      } catch (error) {
        throw fail('delete the probe object it wrote', error);
      }
    },

    async stat(key) {
      const Key = objectKeyOf(location, key);
      let head;
      try {
        head = await client.send(new HeadObjectCommand({ Bucket, Key }));
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw fail(`read ${key}`, error);
      }
      const bytes = head.ContentLength ?? 0;
      const recorded = head.Metadata?.[SHA256_META];
      if (recorded !== undefined && /^[0-9a-f]{64}$/.test(recorded)) return { bytes, sha256: recorded };
      // Stored by a process killed before it recorded the checksum (or by another tool): measure it.
      const body = await store.get(key);
      if (body === undefined) return undefined;
      const hash = createHash('sha256');
      let measured = 0;
      for await (const chunk of body) {
        hash.update(chunk);
        measured += chunk.byteLength;
      }
      return { bytes: measured, sha256: hash.digest('hex') };
    },

    async put(key, body, putOptions = {}) {
      const Key = objectKeyOf(location, key);
      const digest = new BodyDigest();
      const source = digest.tap(body, putOptions.signal);
      let bodyError: { error: unknown } | undefined;
      const watched = (async function* () {
        try {
          yield* source;
        } catch (error) {
          bodyError = { error };
          throw error;
        }
      })();
      const buffer = buffers.take();
      try {
        let used = 0;
        let overflow: Buffer | undefined;
        for (let next = await watched.next(); next.done !== true; next = await watched.next()) {
          if (used + next.value.length > partSize) {
            overflow = next.value;
            break;
          }
          next.value.copy(buffer, used);
          used += next.value.length;
        }
        // What a killed upload of this key left is stale: only one process writes a given result. The
        // prefix's unfinished uploads are listed once, at the first put (./unfinished-uploads.ts). An
        // image's PutObject does not wait for that listing (a round trip on AWS, in one of the download
        // slots): a single put starts no upload the abort could hit.
        const abortStale = stale.abortFor(Key);
        if (overflow === undefined) {
          const [stored] = await Promise.all([
            putWhole(Key, buffer.subarray(0, used), putOptions.contentType, digest),
            abortStale,
          ]);
          return stored;
        }
        // A video's upload also lists its own key: an upload of it begun since the listing (by a
        // machine whose job this one took over, killed since) is stale too.
        await abortStale;
        await abortUnfinishedUploads(client, location, { key: Key }).catch(() => undefined);
        const rest = (async function* () {
          yield overflow;
          yield* watched;
        })();
        return await putMultipart(Key, partsOf(buffers, buffer, used, rest), digest, putOptions.contentType);
      } catch (error) {
        // A body that failed (download error, size cap, abort) is the caller's error, not the store's.
        if (bodyError !== undefined) throw bodyError.error as Error;
        throw fail(`store ${key}`, error);
      } finally {
        buffers.give(buffer);
      }
    },

    async list(folder) {
      const Prefix = `${objectKeyOf(location, folder)}/`;
      const names: string[] = [];
      let ContinuationToken: string | undefined;
      try {
        do {
          const page = await client.send(
            new ListObjectsV2Command({
              Bucket,
              Prefix,
              Delimiter: '/',
              ...(ContinuationToken === undefined ? {} : { ContinuationToken }),
            }),
          );
          for (const object of page.Contents ?? []) {
            const name = object.Key?.slice(Prefix.length);
            if (name !== undefined && name !== '' && !name.includes('/')) names.push(name);
          }
          ContinuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
        } while (ContinuationToken !== undefined);
      } catch (error) {
        throw fail(`list ${folder}/`, error);
      }
      return names;
    },

    async get(key) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket, Key: objectKeyOf(location, key) }));
        return answer.Body as AsyncIterable<Uint8Array> | undefined;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw fail(`read ${key}`, error);
      }
    },

    async move(from, to) {
      const source = objectKeyOf(location, from);
      const Key = objectKeyOf(location, to);
      try {
        await client.send(
          new CopyObjectCommand({
            Bucket,
            Key,
            CopySource: copySource(Bucket, source),
            MetadataDirective: 'COPY',
          }),
        );
      } catch (error) {
        throw fail(`move ${from} to ${to}`, error);
      }
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: source }));
      } catch (error) {
        throw fail(`remove ${from} after copying it to ${to}`, error);
      }
    },

    async writeWhole(key, data, contentType) {
      const Key = objectKeyOf(location, key);
      try {
        await putWhole(Key, typeof data === 'string' ? Buffer.from(data) : Buffer.from(data), contentType);
      } catch (error) {
        throw fail(`write ${key}`, error);
      }
    },

    async sweepUnfinished() {
      const now = options.now ?? Date.now;
      const staleBefore = now() - (options.staleUploadMs ?? 20 * 60_000);
      try {
        await abortUnfinishedUploads(client, location, { startedBefore: staleBefore });
      } catch (error) {
        throw fail('abort the unfinished uploads under the prefix', error);
      }
    },

    close() {
      client.destroy();
    },
  };
  return store;
}

/** CopyObject's source: `bucket/key`, the key URL-encoded but for its slashes. */
const copySource = (bucket: string, key: string): string =>
  `${bucket}/${encodeURIComponent(key).replace(/%2F/g, '/')}`;

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined;
  if (e?.name === 'NoSuchBucket') return false;
  return e?.name === 'NotFound' || e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404;
}
