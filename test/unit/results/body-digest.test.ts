import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyDigest } from '../../../src/results/backends/s3/body-digest.js';

const md5 = (data: Buffer) => createHash('md5').update(data).digest();

/** The digests as written out in full: each hash over its own bytes. */
function expected(data: Buffer, partSize: number) {
  const parts: Buffer[] = [];
  for (let at = 0; at < data.length; at += partSize) parts.push(md5(data.subarray(at, at + partSize)));
  return {
    bytes: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
    md5: md5(data).toString('hex'),
    multipartEtag: `${md5(Buffer.concat(parts)).toString('hex')}-${parts.length}`,
  };
}

describe('BodyDigest', () => {
  it('gives the size, SHA-256, MD5 and multipart ETag of any body, however it is cut into chunks', () => {
    const partSize = 64;
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 5 * partSize + 3 }),
        fc.array(fc.integer({ min: 1, max: 3 * partSize }), { minLength: 1 }),
        (bytes, cuts) => {
          const data = Buffer.from(bytes);
          const digest = new BodyDigest(partSize);
          for (let at = 0, i = 0; at < data.length; i += 1) {
            const take = cuts[i % cuts.length]!;
            digest.add(data.subarray(at, at + take));
            at += take;
          }
          const got = digest.finish();
          expect({
            bytes: got.bytes,
            sha256: got.sha256.toString('hex'),
            md5: got.md5.toString('hex'),
            multipartEtag: got.multipartEtag,
          }).toEqual(expected(data, partSize));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives a body of exactly one part the ETag of one part', () => {
    const data = Buffer.alloc(64, 7);
    const digest = new BodyDigest(64);
    digest.add(data);
    expect(digest.finish().multipartEtag).toBe(expected(data, 64).multipartEtag);
  });
});
