import { createHash } from 'node:crypto';
import { RunnerError } from '../../../errors.js';

/**
 * How the store proved it kept the bytes of one put (a whole object, or one part of a multipart
 * upload):
 * - `echo`: it answered the `x-amz-checksum-sha256` it was sent with the same value. AWS S3, R2 and
 *   MinIO verify that checksum against what they received (a mismatch is refused with `BadDigest`) and
 *   answer it back; it costs the client nothing, the SHA-256 being computed anyway.
 * - `etag`: it ignored the checksum (s3rver, older stores) but answered the MD5 of what it kept as the
 *   ETag: the MD5 of the sent bytes is computed then, after the answer, from the buffer still held.
 * - `none`: neither (an ETag that is no MD5, as under SSE-KMS, and no echo): the caller must read the
 *   object back before calling it stored.
 */
export type StoredProof = 'echo' | 'etag' | 'none';

/** What a put sent and what the store answered. */
export interface PutAnswer {
  /** The bytes sent, still in memory: their MD5 is computed only when the store echoed no checksum. */
  body: Buffer;
  /** Their SHA-256, as sent in `x-amz-checksum-sha256`. */
  sha256: Buffer;
  /** The answer's `x-amz-checksum-sha256` (base64), if any. */
  echoed: string | undefined;
  /** The answer's ETag, if any. */
  etag: string | undefined;
}

/**
 * Judges a store's answer to one put: the proof it gave, or a RunnerError when the proof shows the
 * bytes kept are not the bytes sent (`what` names the object or part; `display` the store).
 */
export function proofOf(answer: PutAnswer, what: string, display: string): StoredProof {
  const sent = answer.sha256.toString('base64');
  if (answer.echoed !== undefined && answer.echoed !== '') {
    if (answer.echoed === sent) return 'echo';
    throw notAsSent(display, what, `its SHA-256 ${answer.echoed}, expected ${sent}`);
  }
  const etag = (answer.etag ?? '').replace(/"/g, '').toLowerCase();
  // Not an MD5 (an SSE-KMS object's ETag, say): nothing in the answer proves the bytes.
  if (!/^[0-9a-f]{32}$/.test(etag)) return 'none';
  const md5 = createHash('md5').update(answer.body).digest('hex');
  if (etag === md5) return 'etag';
  throw notAsSent(display, what, `ETag ${etag}, expected ${md5}`);
}

/**
 * The checksum S3 answers to a CompleteMultipartUpload of an upload created with SHA-256 (a COMPOSITE
 * checksum, AWS S3, R2 and MinIO alike): the SHA-256 of the parts' binary SHA-256s joined in part order,
 * base64, then `-` and the part count. `parts` are the parts' SHA-256s as sent (base64), in part order.
 */
export function compositeSha256(parts: readonly string[]): string {
  const joined = createHash('sha256');
  for (const part of parts) joined.update(Buffer.from(part, 'base64'));
  return `${joined.digest('base64')}-${parts.length}`;
}

/**
 * Judges a store's answer to a CompleteMultipartUpload: `echo` when its composite checksum is the one
 * the parts sent make (see {@link compositeSha256}; a store that leaves the `-N` off is taken at its
 * checksum), `none` when it answers none (s3rver, older stores: each part's proof stands alone) or one
 * of the whole object (`FULL_OBJECT`, which S3 has for CRCs only, not for SHA-256), or a RunnerError
 * when the store joined other parts than those sent (`what` names the object; `display` the store).
 */
export function compositeProofOf(
  answer: { checksum: string | undefined; type: string | undefined },
  parts: readonly string[],
  what: string,
  display: string,
): 'echo' | 'none' {
  if (answer.checksum === undefined || answer.checksum === '' || answer.type === 'FULL_OBJECT') return 'none';
  const expected = compositeSha256(parts);
  const answered = answer.checksum.includes('-') ? answer.checksum : `${answer.checksum}-${parts.length}`;
  if (answered === expected) return 'echo';
  throw notAsSent(display, what, `its composite SHA-256 ${answer.checksum}, expected ${expected}`);
}

export function notAsSent(display: string, what: string, detail: string): RunnerError {
  return new RunnerError('RESULTS_UNREACHABLE', `${display}: ${what} was not stored as sent (${detail}).`, {
    hint: 'The store or something between changed the bytes; run the command again to upload it again.',
  });
}
