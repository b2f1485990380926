import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RunnerError } from '../../../src/errors.js';
import { compositeProofOf, proofOf } from '../../../src/results/backends/s3/stored-proof.js';

const body = Buffer.from('the bytes of one result');
const sha256 = createHash('sha256').update(body).digest();
const md5 = createHash('md5').update(body).digest('hex');
const judge = (echoed: string | undefined, etag: string | undefined) =>
  proofOf({ body, sha256, echoed, etag }, 'the object night/a.png', 's3://results/night');

describe("the store's proof that it kept a put's bytes (#30)", () => {
  it('takes the checksum echoed as sent, whatever the ETag', () => {
    expect(judge(sha256.toString('base64'), '"not-an-md5"')).toBe('echo');
    expect(judge(sha256.toString('base64'), `"${'0'.repeat(32)}"`)).toBe('echo');
  });

  it('refuses a checksum echoed other than sent, naming the object and the store', () => {
    const other = createHash('sha256').update('other bytes').digest('base64');
    expect(() => judge(other, `"${md5}"`)).toThrow(RunnerError);
    expect(() => judge(other, `"${md5}"`)).toThrow(
      `s3://results/night: the object night/a.png was not stored as sent (its SHA-256 ${other}, expected ${sha256.toString('base64')}).`,
    );
  });

  it('without an echo, takes an ETag that is the MD5 of the bytes and refuses one that is not', () => {
    expect(judge(undefined, `"${md5}"`)).toBe('etag');
    expect(judge('', `"${md5.toUpperCase()}"`)).toBe('etag');
    expect(() => judge(undefined, `"${'0'.repeat(32)}"`)).toThrow(`ETag ${'0'.repeat(32)}, expected ${md5}`);
  });

  it('calls proof nothing when there is no echo and the ETag is no MD5 (SSE-KMS, a multipart ETag)', () => {
    expect(judge(undefined, '"kms-opaque"')).toBe('none');
    expect(judge(undefined, `"${md5}-2"`)).toBe('none');
    expect(judge(undefined, undefined)).toBe('none');
  });
});

describe("the store's composite checksum of a multipart upload (#30)", () => {
  const parts = ['first part', 'second part', 'last'].map((text) =>
    createHash('sha256').update(text).digest('base64'),
  );
  // As AWS S3 documents it: the SHA-256 of the parts' binary SHA-256s joined in order, then -N.
  const joined = createHash('sha256')
    .update(Buffer.concat(parts.map((part) => Buffer.from(part, 'base64'))))
    .digest('base64');
  const judge = (checksum: string | undefined, type?: string) =>
    compositeProofOf({ checksum, type }, parts, 'the object night/a.mp4', 's3://results/night');

  it('takes the composite the parts make, with or without its part count', () => {
    expect(judge(`${joined}-3`, 'COMPOSITE')).toBe('echo');
    expect(judge(joined)).toBe('echo');
  });

  it('refuses a composite of other parts, another order or another count, naming the object and the store', () => {
    const reversed = createHash('sha256')
      .update(Buffer.concat([...parts].reverse().map((part) => Buffer.from(part, 'base64'))))
      .digest('base64');
    expect(() => judge(`${reversed}-3`)).toThrow(
      `s3://results/night: the object night/a.mp4 was not stored as sent (its composite SHA-256 ${reversed}-3, expected ${joined}-3).`,
    );
    expect(() => judge(`${joined}-2`)).toThrow(RunnerError);
  });

  it('calls proof nothing when the store answers no composite (s3rver) or a full-object checksum', () => {
    expect(judge(undefined)).toBe('none');
    expect(judge('')).toBe('none');
    expect(judge(`${joined}-3`, 'FULL_OBJECT')).toBe('none');
  });
});
