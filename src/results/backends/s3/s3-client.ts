import { S3Client } from '@aws-sdk/client-s3';

/** How the S3 client talks to the store; every field has a production default. */
export interface S3ClientOptions {
  /** Attempts per request, the SDK's retries included. @default 3 */
  maxAttempts?: number;
  /** How long a connection may take to open. @default 10_000 */
  connectionTimeoutMs?: number;
  /**
   * How long a request may take until the store answers (a part's upload included); a socket silent
   * for a minute fails sooner. @default 300_000
   */
  requestTimeoutMs?: number;
}

/**
 * The SDK's client, configured from the standard AWS variables and files only: region (`AWS_REGION`,
 * the profile), endpoint (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the profile's `endpoint_url`) and
 * credentials (the default chain: environment, shared files, web identity). Nothing of it is printed.
 */
export function createS3Client(
  options: S3ClientOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): S3Client {
  // The SDK's release for Node 20 warns on stderr, once per process, that later releases will need
  // Node 22. It is the SDK's concern, not the user's: this is its documented switch (read by
  // @aws-sdk/core's emitWarningIfUnsupportedVersion when the client is made).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new S3Client({
    // A store that is not AWS (MinIO, R2, Ceph, s3rver) is reached at a custom endpoint and serves
    // buckets by path, not by host name.
    forcePathStyle: hasCustomEndpoint(env),
    // A streamed body with the SDK's default checksums is sent `aws-chunked` with a trailing checksum,
    // and some S3-compatible stores keep that framing as the object's bytes (s3rver stored 49 bytes
    // for 8): checksums only where the operation needs one or this code sets one (it always does).
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: options.maxAttempts ?? 3,
    // The middleware stack resolved once per command class, not for each request (~0.2–0.3 ms of CPU
    // per put): nothing adds middleware to a command, the payload hash is the client's (./payload-hash.ts).
    // The requests of a class then share one handler context, where the SDK notes the endpoint, signing
    // region and auth scheme it resolved: the same for every request of a store (one bucket, one region).
    cacheMiddleware: true,
    requestHandler: {
      connectionTimeout: options.connectionTimeoutMs ?? 10_000,
      requestTimeout: options.requestTimeoutMs ?? 300_000,
      socketTimeout: Math.min(options.requestTimeoutMs ?? 300_000, 60_000),
      // Without it a request past its timeout is only warned about, on the console (stderr).
      throwOnRequestTimeout: true,
    },
  });
}

const hasCustomEndpoint = (env: NodeJS.ProcessEnv): boolean =>
  (env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL ?? '') !== '';
