/**
 * A bare S3 endpoint for benchmarks only (`BENCH_S3=bare`): enough of the protocol for a ResultsStore
 * (PutObject, CopyObject, HeadObject, GetObject, DeleteObject, the multipart calls and their listing),
 * path-style, on 127.0.0.1. It stands for a real store (AWS S3, R2, MinIO) on other machines, so it
 * answers as AWS does and does on these cores only what the runner's checks need of it:
 *
 * - It keeps every body's bytes, in memory: the chunks read from the socket, held as they came (no copy,
 *   no file). A real store writes them on its own machines; a file write here cost ~1 s of the 200 × 5 MB
 *   case's CPU (each byte copied into the page cache by the thread pool, one write and one callback per
 *   64 KiB read) that the runner would never pay against a store elsewhere. `clear()` drops them all.
 * - A put sent with `x-amz-checksum-sha256` (the runner's puts and parts) is answered with that checksum
 *   echoed, as AWS S3 answers once it has verified it, without hashing the body here (`BARE_S3_VERIFY=1`
 *   hashes and verifies it, refusing a mismatch with BadDigest as S3 does, at the cost of a SHA-256 of
 *   every byte on these cores). The ETag of such a put is opaque (AWS's is the MD5 it computes on its
 *   side; the runner reads no ETag when the checksum is echoed). A put with `Content-MD5` and no checksum
 *   has that MD5 as its ETag; one with neither is hashed (MD5), as s3rver does.
 * - CompleteMultipartUpload answers the composite SHA-256 of the parts' checksums, as AWS does; the
 *   object is the parts' chunks in order (S3 joins them on its side).
 * - It checks no signature.
 *
 * What it still costs these cores, and a store elsewhere would not: each body's loopback TCP receive
 * (the kernel's copy out of the socket, and the TCP work the receive's acknowledgements drive) and
 * HTTP parsing, about one `data` event per 64 KiB. bench/s3-endpoint-process.js runs it in a process of
 * its own, so that its CPU is measured apart from the client's and the source's. Never a test's server:
 * s3rver is.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { join } from 'node:path';

const xml = (body) => `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function startBareS3Server(dir) {
  /** key → { chunks, size, etag, contentType, meta } */
  const objects = new Map();
  /** uploadId → { key, contentType, meta, parts: Map<number, { chunks, size, etag, sha256 }> } */
  const uploads = new Map();

  const verify = process.env.BARE_S3_VERIFY === '1';

  /**
   * The request body's chunks, with the answer's ETag and checksum: see the comment at the top for
   * where they come from. `bad` when a verified checksum does not match the body.
   */
  async function receive(req) {
    const sentMd5 = req.headers['content-md5'];
    const sentSha256 = req.headers['x-amz-checksum-sha256'];
    const md5 = sentMd5 === undefined && sentSha256 === undefined ? createHash('md5') : undefined;
    const sha256 = sentSha256 !== undefined && verify ? createHash('sha256') : undefined;
    const chunks = [];
    let size = 0;
    await new Promise((resolve, reject) => {
      req.on('data', (chunk) => {
        chunks.push(chunk);
        size += chunk.length;
        md5?.update(chunk);
        sha256?.update(chunk);
      });
      req.on('end', resolve);
      req.on('error', reject);
    });
    if (sha256 !== undefined && sha256.digest('base64') !== sentSha256) return { bad: true };
    const etag =
      md5?.digest('hex') ??
      (sentMd5 === undefined
        ? Buffer.from(sentSha256, 'base64').subarray(0, 16).toString('hex')
        : Buffer.from(sentMd5, 'base64').toString('hex'));
    return {
      chunks,
      size,
      sha256: sentSha256,
      etag: `"${etag}"`,
      headers: {
        etag: `"${etag}"`,
        ...(sentSha256 === undefined ? {} : { 'x-amz-checksum-sha256': sentSha256 }),
      },
    };
  }

  const badDigest = xml(
    '<Error><Code>BadDigest</Code><Message>The SHA256 you specified did not match the calculated checksum.</Message></Error>',
  );

  const metaOf = (req) =>
    Object.fromEntries(Object.entries(req.headers).filter(([name]) => name.startsWith('x-amz-meta-')));

  async function handle(req, res) {
    const url = new URL(req.url, 'http://bare');
    const [, bucket, ...rest] = url.pathname.split('/');
    const key = rest.map(decodeURIComponent).join('/');
    const q = url.searchParams;
    const send = (status, body, headers = {}) => {
      res.writeHead(status, {
        ...(body === undefined ? {} : { 'content-type': 'application/xml' }),
        ...headers,
      });
      res.end(body);
    };
    if (req.method === 'PUT' && q.has('partNumber')) {
      const upload = uploads.get(q.get('uploadId'));
      if (upload === undefined) return send(404, xml('<Error><Code>NoSuchUpload</Code></Error>'));
      const part = await receive(req);
      if (part.bad) return send(400, badDigest);
      upload.parts.set(Number(q.get('partNumber')), part);
      return send(200, undefined, part.headers);
    }
    if (req.method === 'PUT' && req.headers['x-amz-copy-source'] !== undefined) {
      const source = decodeURIComponent(req.headers['x-amz-copy-source']).replace(/^\/?[^/]+\//, '');
      const from = objects.get(source);
      if (from === undefined) return send(404, xml('<Error><Code>NoSuchKey</Code></Error>'));
      // The chunks are never changed once received: the copy shares them.
      objects.set(key, { ...from });
      return send(200, xml(`<CopyObjectResult><ETag>${from.etag}</ETag></CopyObjectResult>`));
    }
    if (req.method === 'PUT') {
      const body = await receive(req);
      if (body.bad) return send(400, badDigest);
      objects.set(key, {
        chunks: body.chunks,
        size: body.size,
        etag: body.etag,
        contentType: req.headers['content-type'],
        meta: metaOf(req),
      });
      return send(200, undefined, body.headers);
    }
    if (req.method === 'POST' && q.has('uploads')) {
      const uploadId = randomUUID();
      uploads.set(uploadId, {
        key,
        contentType: req.headers['content-type'],
        meta: metaOf(req),
        parts: new Map(),
      });
      return send(
        200,
        xml(
          `<InitiateMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${escape(key)}</Key><UploadId>${uploadId}</UploadId></InitiateMultipartUploadResult>`,
        ),
      );
    }
    if (req.method === 'POST' && q.has('uploadId')) {
      const upload = uploads.get(q.get('uploadId'));
      req.resume();
      await new Promise((resolve) => req.on('end', resolve));
      if (upload === undefined) return send(404, xml('<Error><Code>NoSuchUpload</Code></Error>'));
      const numbers = [...upload.parts.keys()].sort((a, b) => a - b);
      // S3 joins the parts on its side; here the object is the parts' chunks in order.
      const chunks = numbers.flatMap((number) => upload.parts.get(number).chunks);
      const joined = createHash('md5');
      for (const number of numbers)
        joined.update(Buffer.from(upload.parts.get(number).etag.slice(1, -1), 'hex'));
      const etag = `"${joined.digest('hex')}-${numbers.length}"`;
      // As AWS S3 answers an upload whose parts carried SHA-256s: the composite checksum, the SHA-256
      // of the parts' binary checksums in order, then -N (the runner compares it with its parts').
      const sums = numbers.map((number) => upload.parts.get(number).sha256);
      let checksum = '';
      if (sums.every((sum) => sum !== undefined)) {
        const composite = createHash('sha256');
        for (const sum of sums) composite.update(Buffer.from(sum, 'base64'));
        checksum = `<ChecksumSHA256>${composite.digest('base64')}-${numbers.length}</ChecksumSHA256><ChecksumType>COMPOSITE</ChecksumType>`;
      }
      objects.set(upload.key, {
        chunks,
        size: numbers.reduce((sum, number) => sum + upload.parts.get(number).size, 0),
        etag,
        contentType: upload.contentType,
        meta: upload.meta,
      });
      uploads.delete(q.get('uploadId'));
      return send(
        200,
        xml(
          `<CompleteMultipartUploadResult><Bucket>${bucket}</Bucket><Key>${escape(upload.key)}</Key><ETag>${etag}</ETag>${checksum}</CompleteMultipartUploadResult>`,
        ),
      );
    }
    if (req.method === 'DELETE' && q.has('uploadId')) {
      uploads.delete(q.get('uploadId'));
      return send(204);
    }
    if (req.method === 'DELETE') {
      objects.delete(key);
      return send(204);
    }
    if (req.method === 'GET' && key === '' && q.has('uploads')) {
      const prefix = q.get('prefix') ?? '';
      const rows = [...uploads.entries()]
        .filter(([, upload]) => upload.key.startsWith(prefix))
        .map(([id, upload]) => `<Upload><Key>${escape(upload.key)}</Key><UploadId>${id}</UploadId></Upload>`);
      return send(
        200,
        xml(
          `<ListMultipartUploadsResult><Bucket>${bucket}</Bucket><IsTruncated>false</IsTruncated>${rows.join('')}</ListMultipartUploadsResult>`,
        ),
      );
    }
    if (req.method === 'GET' && key === '') {
      const prefix = q.get('prefix') ?? '';
      const rows = [...objects.entries()]
        .filter(([name]) => name.startsWith(prefix))
        .map(
          ([name, object]) =>
            `<Contents><Key>${escape(name)}</Key><Size>${object.size}</Size><ETag>${object.etag}</ETag></Contents>`,
        );
      return send(
        200,
        xml(
          `<ListBucketResult><Name>${bucket}</Name><KeyCount>${rows.length}</KeyCount><IsTruncated>false</IsTruncated>${rows.join('')}</ListBucketResult>`,
        ),
      );
    }
    const object = objects.get(key);
    if (req.method === 'HEAD' || req.method === 'GET') {
      if (object === undefined)
        return send(404, req.method === 'HEAD' ? undefined : xml('<Error><Code>NoSuchKey</Code></Error>'));
      res.writeHead(200, {
        'content-length': object.size,
        etag: object.etag,
        ...(object.contentType === undefined ? {} : { 'content-type': object.contentType }),
        ...object.meta,
      });
      if (req.method === 'HEAD') return res.end();
      for (const chunk of object.chunks) res.write(chunk);
      return res.end();
    }
    return send(501, xml('<Error><Code>NotImplemented</Code></Error>'));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    env: {
      AWS_ACCESS_KEY_ID: 'BARE',
      AWS_SECRET_ACCESS_KEY: 'BARE',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      AWS_CONFIG_FILE: join(dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    /** Drops every object and upload (between a benchmark's rounds). */
    clear: () => {
      objects.clear();
      uploads.clear();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
