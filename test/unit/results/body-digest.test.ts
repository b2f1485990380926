import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyDigest } from '../../../src/results/backends/s3/body-digest.js';

/** The digests as written out in full: each hash over its own bytes. */
function expected(data: Buffer, partSize: number) {
  return {
    bytes: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
    md5: data.length <= partSize ? createHash('md5').update(data).digest('hex') : undefined,
  };
}

describe('BodyDigest', () => {
  it('gives the size and SHA-256 of any body, and the MD5 of one up to a part, however it is cut into chunks', () => {
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
            md5: got.md5?.toString('hex'),
          }).toEqual(expected(data, partSize));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('gives a body of exactly one part its MD5, and one byte longer none', () => {
    const data = Buffer.alloc(65, 7);
    const whole = new BodyDigest(64);
    whole.add(data.subarray(0, 64));
    expect(whole.finish().md5?.toString('hex')).toBe(expected(data.subarray(0, 64), 64).md5);
    const longer = new BodyDigest(64);
    longer.add(data);
    expect(longer.finish().md5).toBeUndefined();
  });
});
