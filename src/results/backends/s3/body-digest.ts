import { createHash } from 'node:crypto';

/**
 * What was sent of one body, measured while it streams: its size and SHA-256 (recorded, and sent as
 * the object's checksum and metadata).
 *
 * Each byte is hashed once here, by SHA-256 only. No MD5 is measured as the body goes by: a store that
 * echoes the SHA-256 it was sent (AWS S3, R2, MinIO) needs none, and for one that does not, the MD5 its
 * ETag is checked against is computed after its answer from the bytes still in memory
 * (`./stored-proof.ts`). MD5 ran at 645 MB/s on the benchmark's machine against SHA-256's 1,528 MB/s:
 * it was most of what the bucket cost the client beyond the disk.
 */
export class BodyDigest {
  bytes = 0;
  private readonly sha256 = createHash('sha256');

  /** Passes `body` through, measuring each chunk; stops with the signal's reason once it aborts. */
  async *tap(body: AsyncIterable<Uint8Array>, signal?: AbortSignal): AsyncGenerator<Buffer> {
    signal?.throwIfAborted();
    for await (const chunk of body) {
      signal?.throwIfAborted();
      const buffer = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      this.add(buffer);
      yield buffer;
    }
    signal?.throwIfAborted();
  }

  /** Measures one more chunk of the body. */
  add(buffer: Buffer): void {
    this.bytes += buffer.length;
    this.sha256.update(buffer);
  }

  /** The digests once the body has ended (call once). */
  finish(): { bytes: number; sha256: Buffer } {
    return { bytes: this.bytes, sha256: this.sha256.digest() };
  }
}
