import type * as NodeCrypto from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';

/**
 * Counts the bytes this process hashes, per algorithm, by wrapping `crypto.createHash`. Imported
 * before anything else of a test file: the AWS SDK takes `createHash` out of `node:crypto` when it
 * loads (`const { createHash } = require(...)`), so the wrapper must be in place by then; modules
 * that import it by name see it through `syncBuiltinESMExports`. Hashes made by s3rver and by the test
 * proxy (both run in the test's process) are left out: the count is of the client's side.
 */
const crypto = createRequire(import.meta.url)('node:crypto') as typeof NodeCrypto;
const original = crypto.createHash;
const hashed = new Map<string, number>();

crypto.createHash = (algorithm: string, options?: unknown) => {
  const hash = original(algorithm, options as never);
  const stack = new Error().stack ?? '';
  // The store's side: s3rver, and the test proxy measuring what it passes on as a verifying store would.
  if (stack.includes('node_modules/s3rver') || stack.includes('s3-fault-proxy')) return hash;
  const update = hash.update.bind(hash);
  const name = algorithm.toLowerCase();
  hash.update = (data: string | NodeJS.ArrayBufferView, encoding?: BufferEncoding) => {
    const bytes = typeof data === 'string' ? Buffer.byteLength(data, encoding) : data.byteLength;
    hashed.set(name, (hashed.get(name) ?? 0) + bytes);
    return encoding === undefined ? update(data) : update(data as string, encoding);
  };
  return hash;
};
syncBuiltinESMExports();

/** The bytes hashed by `algorithm` since the last {@link resetHashCounts}. */
export const bytesHashed = (algorithm: string): number => hashed.get(algorithm) ?? 0;

export function resetHashCounts(): void {
  hashed.clear();
}
