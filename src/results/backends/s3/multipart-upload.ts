import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  UploadPartCommand,
  type CompletedPart,
  type S3Client,
} from '@aws-sdk/client-s3';
import { RunnerError } from '../../../errors.js';
import { compositeProofOf, proofOf } from './stored-proof.js';

/** One part's bytes, and what to call once nothing reads them any more (its buffer is reused). */
export interface Part {
  body: Buffer;
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
 * by hand rather than through lib-storage's `Upload`, so that each part's bytes are hashed once more
 * only: its SHA-256, sent as the part's `x-amz-checksum-sha256` (the upload is created with
 * `ChecksumAlgorithm: SHA256`) and as SigV4's signed payload hash (./payload-hash.ts), both checked by the store. A store
 * that echoes the part's checksum has proved it; one that does not (s3rver) has its ETag compared with
 * the part's MD5, computed then from the part's buffer, held until the answer (see ./stored-proof.ts).
 * Through `Upload` each part was hashed by SHA-256 twice; an MD5 of every part, which this code sent as
 * `Content-MD5` until the checksum took its place, cost more than both SHA-256s (645 MB/s against
 * 1,528 MB/s on the benchmark's machine). The whole body's SHA-256 is the caller's, measured as it
 * streamed in. At most `queueSize` parts are in flight and one filling: memory stays flat whatever the
 * size. An upload that fails (a part, the body, the completion) is aborted, its parts removed, before
 * the error is thrown. The completion's composite checksum, where the store answers one, is compared
 * with the one the parts sent make; an object joined of other bytes is deleted and refused.
 *
 * Returns how many parts the store proved by neither an echo nor an MD5 ETag (`unproven`): the caller
 * reads such an object back before calling it stored.
 */
export async function uploadParts(
  client: S3Client,
  target: MultipartTarget,
  parts: AsyncIterable<Part>,
): Promise<{ etag: string | undefined; parts: number; unproven: number }> {
  const { Bucket, Key } = target;
  const created = await client.send(
    new CreateMultipartUploadCommand({
      Bucket,
      Key,
      ChecksumAlgorithm: 'SHA256',
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
  let unproven = 0;
  const send = async (PartNumber: number, { body: part, release }: Part): Promise<void> => {
    try {
      const sha256 = createHash('sha256').update(part).digest();
      const ChecksumSHA256 = sha256.toString('base64');
      const command = new UploadPartCommand({
        Bucket,
        Key,
        UploadId,
        PartNumber,
        Body: part,
        ContentLength: part.length,
        ChecksumSHA256,
      });
      const answer = await client.send(command);
      const proof = proofOf(
        { body: part, sha256, echoed: answer.ChecksumSHA256, etag: answer.ETag },
        `part ${PartNumber} of ${Key}`,
        target.display,
      );
      if (proof === 'none') unproven += 1;
      done.push({ PartNumber, ETag: answer.ETag, ChecksumSHA256 });
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
    try {
      compositeProofOf(
        { checksum: answer.ChecksumSHA256, type: answer.ChecksumType },
        done.map((part) => part.ChecksumSHA256 ?? ''),
        `the object ${Key}`,
        target.display,
      );
    } catch (error) {
      // The upload is an object now: it goes, so that nothing finds it under its key.
      await client.send(new DeleteObjectCommand({ Bucket, Key })).catch(() => undefined);
      throw error;
    }
    return { etag: answer.ETag, parts: done.length, unproven };
  } catch (error) {
    // The parts in flight end first (their buffers are given back), then the upload goes.
    await Promise.allSettled(inFlight);
    await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => undefined);
    throw error;
  }
}
