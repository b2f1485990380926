import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';

/** A throwaway S3 server (s3rver) for one test file, storing into a temporary folder. */
export interface S3Server {
  /** `http://127.0.0.1:PORT`, for AWS_ENDPOINT_URL_S3. */
  readonly endpoint: string;
  readonly port: number;
  /** A bucket made at start. */
  readonly bucket: string;
  /** The credentials s3rver accepts (its built-in account), as the SDK's environment variables. */
  readonly env: Record<string, string>;
  /** The bytes s3rver keeps on disk for an object (its own folder, not the S3 API), or undefined. */
  storedBytes(key: string, bucket?: string): Promise<Buffer | undefined>;
  /** The unfinished multipart uploads s3rver keeps on disk: their object keys. */
  unfinishedUploads(bucket?: string): Promise<string[]>;
  /**
   * The environment a CLI child needs for this server: its credentials and endpoint, and AWS config
   * files in `dir` that do not exist, so nothing of the developer's own AWS setup is read.
   */
  cliEnv(dir: string): Record<string, string>;
  /** The keys under `prefix/` of the bucket, sorted, read through the S3 API. */
  listKeys(prefix: string): Promise<string[]>;
  /** An object's bytes, read through the S3 API. */
  readObject(key: string): Promise<Buffer>;
  deleteObject(key: string): Promise<void>;
  stop(): Promise<void>;
}

const UPLOADS = '._S3rver_uploads';

/**
 * s3rver on 127.0.0.1, port 0, in a temporary folder, with bucket `results`. s3rver 3.7 lacks two calls
 * the results store makes, ListMultipartUploads and AbortMultipartUpload (it answers NotImplemented
 * and 405); this helper adds both over s3rver's own folder of unfinished uploads
 * (`<bucket>/._S3rver_uploads/<uploadId>/key`), without signature checks.
 */
export async function startS3Server(): Promise<S3Server> {
  const dir = mkdtempSync(join(tmpdir(), 'runner-s3-'));
  const bucket = 'results';
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: dir,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const uploadsOf = (name: string) => join(dir, name, UPLOADS);
  const listUploads = async (name: string) => {
    const ids = await readdir(uploadsOf(name)).catch(() => [] as string[]);
    return Promise.all(
      ids.map(async (id) => ({
        id,
        key: await readFile(join(uploadsOf(name), id, 'key'), 'utf8'),
        initiated: (await stat(join(uploadsOf(name), id))).mtime,
      })),
    );
  };
  server.middleware.unshift(async (ctx, next) => {
    const [name, ...rest] = ctx.path.split('/').filter((part) => part !== '');
    if (name === undefined || name === '') return next();
    if (ctx.method === 'GET' && rest.length === 0 && 'uploads' in ctx.query) {
      const prefix = ctx.query.prefix ?? '';
      const uploads = (await listUploads(name)).filter((upload) => upload.key.startsWith(prefix));
      ctx.type = 'application/xml';
      ctx.body =
        `<?xml version="1.0" encoding="UTF-8"?><ListMultipartUploadsResult><Bucket>${name}</Bucket>` +
        `<IsTruncated>false</IsTruncated>` +
        uploads
          .map(
            (u) =>
              `<Upload><Key>${escapeXml(u.key)}</Key><UploadId>${u.id}</UploadId>` +
              `<Initiated>${u.initiated.toISOString()}</Initiated></Upload>`,
          )
          .join('') +
        `</ListMultipartUploadsResult>`;
      return;
    }
    const uploadId = ctx.query.uploadId;
    if (ctx.method === 'DELETE' && uploadId !== undefined && /^[0-9a-f]+$/.test(uploadId)) {
      await rm(join(uploadsOf(name), uploadId), { recursive: true, force: true });
      ctx.status = 204;
      return;
    }
    return next();
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const env = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' };
  /** The test's own SDK client, for one call (its warnings are the test's, not the CLI's). */
  const withClient = async <T>(use: (client: S3Client) => Promise<T>): Promise<T> => {
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const client = new S3Client({
      forcePathStyle: true,
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    try {
      return await use(client);
    } finally {
      client.destroy();
    }
  };
  return {
    endpoint,
    port,
    bucket,
    env,
    cliEnv: (home) => ({
      ...env,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_CONFIG_FILE: join(home, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(home, 'aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    }),
    listKeys: (prefix) =>
      withClient(async (client) => {
        const answer = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
        return (answer.Contents ?? []).map((object) => object.Key ?? '').sort();
      }),
    readObject: (key) =>
      withClient(async (client) => {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
      }),
    deleteObject: (key) =>
      withClient(async (client) => {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      }),
    async storedBytes(key, name = bucket) {
      const parts = key.split('/');
      const last = parts.pop()!;
      return readFile(join(dir, name, ...parts, `${last}._S3rver_object`)).catch(() => undefined);
    },
    async unfinishedUploads(name = bucket) {
      return (await listUploads(name)).map((upload) => upload.key);
    },
    async stop() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Starts an S3 server before the file's tests and stops it after; returns a getter for it. */
export function useS3Server(): () => S3Server {
  let server: S3Server | undefined;
  beforeAll(async () => {
    server = await startS3Server();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined) throw new Error('the S3 server has not started');
    return server;
  };
}
