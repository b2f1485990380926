import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BodyDigest } from '../../../src/results/backends/s3/body-digest.js';

describe('BodyDigest', () => {
  it('gives the size and SHA-256 of any body, however it is cut into chunks', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 323 }),
        fc.array(fc.integer({ min: 1, max: 192 }), { minLength: 1 }),
        (bytes, cuts) => {
          const data = Buffer.from(bytes);
          const digest = new BodyDigest();
          for (let at = 0, i = 0; at < data.length; i += 1) {
            const take = cuts[i % cuts.length]!;
            digest.add(data.subarray(at, at + take));
            at += take;
          }
          const got = digest.finish();
          expect({ bytes: got.bytes, sha256: got.sha256.toString('hex') }).toEqual({
            bytes: data.length,
            sha256: createHash('sha256').update(data).digest('hex'),
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
