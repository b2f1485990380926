import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { StoredResult } from '../../results-store.js';

/** The size and SHA-256 of a file's bytes, read through once. */
export async function hashFile(path: string): Promise<StoredResult> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { bytes, sha256: hash.digest('hex') };
}
