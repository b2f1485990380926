import { AbortMultipartUploadCommand, ListMultipartUploadsCommand, type S3Client } from '@aws-sdk/client-s3';
import type { S3Location } from './s3-location.js';

/**
 * Aborts unfinished multipart uploads under the location's prefix (their parts are billed storage and
 * never become an object): those of one object key, or those started before a time. Returns how many.
 * A store that does not list uploads (NotImplemented) has none to abort.
 */
export async function abortUnfinishedUploads(
  client: S3Client,
  location: S3Location,
  which: { key: string } | { startedBefore: number },
): Promise<number> {
  let aborted = 0;
  const prefix = 'key' in which ? which.key : prefixOf(location);
  for await (const upload of listUnfinishedUploads(client, location.bucket, prefix)) {
    const matches =
      'key' in which
        ? upload.Key === which.key
        : upload.Initiated !== undefined && upload.Initiated.getTime() < which.startedBefore;
    if (!matches) continue;
    await client.send(
      new AbortMultipartUploadCommand({
        Bucket: location.bucket,
        Key: upload.Key,
        UploadId: upload.UploadId,
      }),
    );
    aborted += 1;
  }
  return aborted;
}

const prefixOf = (location: S3Location): string | undefined =>
  location.prefix === '' ? undefined : `${location.prefix}/`;

/**
 * The bucket's unfinished multipart uploads under `Prefix`, page by page; none from a store that does
 * not list uploads (NotImplemented).
 */
async function* listUnfinishedUploads(
  client: S3Client,
  Bucket: string,
  Prefix: string | undefined,
): AsyncGenerator<{ Key: string; UploadId: string; Initiated?: Date | undefined }> {
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  for (;;) {
    let page;
    try {
      page = await client.send(
        new ListMultipartUploadsCommand({
          Bucket,
          ...(Prefix === undefined ? {} : { Prefix }),
          ...(KeyMarker === undefined ? {} : { KeyMarker }),
          ...(UploadIdMarker === undefined ? {} : { UploadIdMarker }),
        }),
      );
    } catch (error) {
      if ((error as { name?: string }).name === 'NotImplemented') return;
      throw error;
    }
    for (const { Key, UploadId, Initiated } of page.Uploads ?? []) {
      if (Key !== undefined && UploadId !== undefined) yield { Key, UploadId, Initiated };
    }
    if (page.IsTruncated !== true) return;
    KeyMarker = page.NextKeyMarker;
    UploadIdMarker = page.NextUploadIdMarker;
  }
}

/**
 * The unfinished uploads under the location's prefix, listed once (at the first `abortFor`) and kept:
 * what processes killed before this store began left, by key. `abortFor(key)` aborts those of one key
 * with no request of its own when there are none, which is nearly always: a listing per put cost each
 * image a round trip and the SDK's work on both sides, 200 requests for 200 images, to find nothing.
 * Uploads this store begins are not in it, as long as it begins none before the listing has ended
 * (the caller awaits `abortFor` before a multipart upload). A store that does not list uploads
 * (NotImplemented) has none; a listing that fails leaves the keys to the per-key listing a multipart
 * upload still makes, and to sweepUnfinished().
 */
export function unfinishedSnapshot(
  client: S3Client,
  location: S3Location,
): { abortFor(key: string): Promise<void> } {
  let listed: Promise<Map<string, string[]>> | undefined;
  const list = async (): Promise<Map<string, string[]>> => {
    const byKey = new Map<string, string[]>();
    for await (const upload of listUnfinishedUploads(client, location.bucket, prefixOf(location))) {
      byKey.set(upload.Key, [...(byKey.get(upload.Key) ?? []), upload.UploadId]);
    }
    return byKey;
  };
  return {
    async abortFor(key) {
      listed ??= list().catch(() => new Map<string, string[]>());
      const byKey = await listed;
      const ids = byKey.get(key) ?? [];
      byKey.delete(key);
      for (const UploadId of ids) {
        await client
          .send(new AbortMultipartUploadCommand({ Bucket: location.bucket, Key: key, UploadId }))
          .catch(() => undefined);
      }
    },
  };
}
