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
  const Bucket = location.bucket;
  const Prefix = 'key' in which ? which.key : location.prefix === '' ? undefined : `${location.prefix}/`;
  let aborted = 0;
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
      if ((error as { name?: string }).name === 'NotImplemented') return aborted;
      throw error;
    }
    for (const upload of page.Uploads ?? []) {
      if (upload.Key === undefined || upload.UploadId === undefined) continue;
      const matches =
        'key' in which
          ? upload.Key === which.key
          : upload.Initiated !== undefined && upload.Initiated.getTime() < which.startedBefore;
      if (!matches) continue;
      await client.send(
        new AbortMultipartUploadCommand({ Bucket, Key: upload.Key, UploadId: upload.UploadId }),
      );
      aborted += 1;
    }
    if (page.IsTruncated !== true) return aborted;
    KeyMarker = page.NextKeyMarker;
    UploadIdMarker = page.NextUploadIdMarker;
  }
}
