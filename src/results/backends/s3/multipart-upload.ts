import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { RunnerError } from '../../../errors.js';

/** One part's bytes, and what to call once nothing reads them any more (its buffer is reused). */
export interface Part {
  body: Buffer;
  /** Its MD5 when already measured (the first part, by the body's digest). */
  md5?: Buffer | undefined;
  release: () => void;
}

/** One object's multipart upload: where, and how it goes. */
export interface MultipartTarget {
  Bucket: string;
  Key: string;
  ContentType?: string | undefined;
  /** How the store is named in errors (`s3://bucket/prefix`). */
  display: string;
  /** Parts uploaded at once. */
  queueSize: number;
}

/**
 * Uploads `parts` (each a full part but the last, as the body streams in) as one multipart upload,
 * by hand rather than through lib-storage's `Upload`, so that each part's bytes are hashed once: its
 * MD5, sent as `Content-MD5` (the store checks it, and SigV4 signs that header) and compared with the
 * part's ETag. Through `Upload` each part was hashed by SHA-256 twice more (its `ChecksumSHA256`, and
 * SigV4's payload hash, which the SDK computes of a buffered body); the payload is now signed as
 * `UNSIGNED-PAYLOAD`, its integrity carried by the signed `Content-MD5`. The whole body's SHA-256 is
 * the caller's, measured as it streamed in. At most `queueSize` parts are in flight and one filling:
 * memory stays flat whatever the size. An upload that fails (a part, the body, the completion) is
 * aborted, its parts removed, before the error is thrown.
 */
export async function uploadParts(
  client: S3Client,
  target: MultipartTarget,
  parts: AsyncIterable<Part>,
): Promise<{ etag: string | undefined; parts: number }> {
  const { Bucket, Key } = target;
  const created = await client.send(
    new CreateMultipartUploadCommand({
      Bucket,
      Key,
      ...(target.ContentType === undefined ? {} : { ContentType: target.ContentType }),
    }),
  );
  const UploadId = created.UploadId;
  if (UploadId === undefined) {
    throw new RunnerError('RESULTS_UNREACHABLE', `${target.display}: the store began no upload of ${Key}.`, {
      hint: 'Run the command again.',
    });
  }
  const done: CompletedPart[] = [];
  const inFlight = new Set<Promise<void>>();
  // The first part that failed: set from the parts' own promises.
  const failed: { error?: unknown; yes: boolean } = { yes: false };
  const send = async (PartNumber: number, { body: part, md5: measured, release }: Part): Promise<void> => {
    try {
      const md5 = measured ?? createHash('md5').update(part).digest();
      const command = new UploadPartCommand({
        Bucket,
        Key,
        UploadId,
        PartNumber,
        Body: part,
        ContentLength: part.length,
        ContentMD5: md5.toString('base64'),
      });
      command.middlewareStack.add(
        (next) => async (args) => {
          const request = args.request as { headers?: Record<string, string> };
          if (request.headers !== undefined) request.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
          return next(args);
        },
        { step: 'build', name: 'runnerUnsignedPart' },
      );
      const answer = await client.send(command);
      checkPartEtag(target, PartNumber, answer.ETag, md5.toString('hex'));
      done.push({ PartNumber, ETag: answer.ETag });
    } finally {
      release();
    }
  };
  try {
    let PartNumber = 0;
    for await (const part of parts) {
      PartNumber += 1;
      const sending = send(PartNumber, part).catch((error: unknown) => {
        if (failed.yes) return;
        failed.yes = true;
        failed.error = error;
      });
      inFlight.add(sending);
      void sending.finally(() => inFlight.delete(sending));
      if (inFlight.size >= target.queueSize) await Promise.race(inFlight);
      if (failed.yes) throw failed.error;
    }
    await Promise.all(inFlight);
    if (failed.yes) throw failed.error;
    done.sort((a, b) => (a.PartNumber ?? 0) - (b.PartNumber ?? 0));
    const answer = await client.send(
      new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: done } }),
    );
    return { etag: answer.ETag, parts: done.length };
  } catch (error) {
    // The parts in flight end first (their buffers are given back), then the upload goes.
    await Promise.allSettled(inFlight);
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
    throw error;
  }
}

/** A part's ETag is the MD5 of what the store kept (where it is an MD5 at all: not under SSE-KMS). */
function checkPartEtag(target: MultipartTarget, part: number, etag: string | undefined, md5: string): void {
  const got = (etag ?? '').replace(/"/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(got) || got === md5) return;
  throw new RunnerError(
    'RESULTS_UNREACHABLE',
    `${target.display}: part ${part} of ${target.Key} was not stored as sent (ETag ${got}, expected ${md5}).`,
    { hint: 'The store or something between changed the bytes; run the command again to upload it again.' },
  );
}
