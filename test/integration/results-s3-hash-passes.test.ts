// First: the SDK takes `createHash` when it loads (see ../count-hashes.ts).
import { bytesHashed, resetHashCounts } from '../count-hashes.js';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openS3ResultsStore } from '../../src/results/s3-results.js';
import { useS3Server } from '../s3-server.js';

/**
 * How many times a multipart result's bytes are hashed on their way into the bucket (#30): each byte
 * once by SHA-256 (the recorded checksum) and once by MD5 (each part's Content-MD5 and ETag). Through
 * lib-storage's Upload the SDK hashed each part by SHA-256 twice more (its ChecksumSHA256, SigV4's
 * payload hash) and the store's own digest MD5'd each byte twice from the second part on. Counted by
 * wrapping `crypto.createHash` in this process (the store, the SDK), leaving out the hashes s3rver,
 * which runs in this process too, makes of what it receives. No mock: the store talks to s3rver.
 * (Measured before the change: SHA-256 3.0×, MD5 1.58× the body of 12 MiB in parts of 5 MiB.)
 */
const s3 = useS3Server();
const MIB = 1024 * 1024;
let awsDir: string;
beforeAll(() => {
  awsDir = mkdtempSync(join(tmpdir(), 'runner-aws-'));
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(awsDir, { recursive: true, force: true });
});

async function* chunks(data: Buffer): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < data.length; at += 64 * 1024) {
    await new Promise((resolve) => setImmediate(resolve));
    yield data.subarray(at, at + 64 * 1024);
  }
}

describe('a multipart result into the bucket (#30)', () => {
  it('hashes each byte once by SHA-256 and once by MD5', async () => {
    const env = {
      ...s3().env,
      AWS_ENDPOINT_URL_S3: s3().endpoint,
      AWS_CONFIG_FILE: join(awsDir, 'config'),
      AWS_SHARED_CREDENTIALS_FILE: join(awsDir, 'credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
    const store = await openS3ResultsStore(`s3://${s3().bucket}/hashes`, { partSize: 5 * MIB });
    try {
      const data = randomBytes(12 * MIB + 12345);
      resetHashCounts();
      const stored = await store.put('clips/intro.mp4', chunks(data), { contentType: 'video/mp4' });
      expect(stored.bytes).toBe(data.length);
      expect((await s3().storedBytes('hashes/clips/intro.mp4'))?.equals(data)).toBe(true);
      // Besides the body, only the requests' own small texts (canonical requests, the parts' list).
      const slack = 64 * 1024;
      const sha256 = bytesHashed('sha256');
      const md5 = bytesHashed('md5');
      expect(sha256, `SHA-256 hashed ${(sha256 / data.length).toFixed(2)}× the body`).toBeGreaterThanOrEqual(
        data.length,
      );
      expect(sha256, `SHA-256 hashed ${(sha256 / data.length).toFixed(2)}× the body`).toBeLessThan(
        data.length + slack,
      );
      expect(md5, `MD5 hashed ${(md5 / data.length).toFixed(2)}× the body`).toBeGreaterThanOrEqual(
        data.length,
      );
      expect(md5, `MD5 hashed ${(md5 / data.length).toFixed(2)}× the body`).toBeLessThan(data.length + slack);
    } finally {
      store.close();
    }
  });
});
