import { createHash } from 'node:crypto';

/**
 * What was sent of one body, measured while it streams: its size and SHA-256 (recorded, and sent as
 * the object's checksum and metadata), and, while it may still be sent as one PutObject (up to one
 * part), its MD5 (sent as Content-MD5, and what S3-compatible stores return as the ETag of a
 * single-part object).
 *
 * Each byte is hashed once by SHA-256, and by MD5 only within the first part: a body longer than a
 * part goes up in parts, each part's MD5 measured as it is sent (`./multipart-upload.ts`), so an MD5
 * of the whole would be a second MD5 of every byte (MD5 runs at ~280 MB/s on the benchmark's
 * machine: 3.6 ms of CPU per MB) that nothing checks.
 */
export class BodyDigest {
  bytes = 0;
  private readonly sha256 = createHash('sha256');
  private readonly md5 = createHash('md5');

  constructor(private readonly partSize: number) {}

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
    const before = this.bytes;
    this.bytes += buffer.length;
    this.sha256.update(buffer);
    if (before < this.partSize) this.md5.update(buffer.subarray(0, this.partSize - before));
  }

  /**
   * The MD5 of the body's first `partSize` bytes once all of them were measured: the first part of
   * a multipart upload, not hashed again.
   */
  firstPartMd5(): Buffer | undefined {
    return this.bytes >= this.partSize ? this.md5.copy().digest() : undefined;
  }

  /**
   * The digests once the body has ended (call once): `md5` only for a body of one part at most (sent
   * whole); a longer one's parts are measured as they are sent.
   */
  finish(): { bytes: number; sha256: Buffer; md5: Buffer | undefined } {
    return {
      bytes: this.bytes,
      sha256: this.sha256.digest(),
      md5: this.bytes <= this.partSize ? this.md5.digest() : undefined,
    };
  }
}
