import type { S3Client } from '@aws-sdk/client-s3';

const NAME = 'runnerPayloadSha256';

/**
 * Makes the SigV4 payload hash (`x-amz-content-sha256`, signed) of each PutObject and UploadPart the
 * SHA-256 already measured and sent as the request's `ChecksumSHA256`: given none, the SDK hashes the
 * whole body once more for it. A store that checks signed payloads (AWS S3, MinIO) then refuses a body
 * changed on the way.
 *
 * One middleware on the client's stack, reading each request's own checksum, rather than one added to
 * each command: a command's own middleware kept the SDK from resolving the stack once per command class
 * (`cacheMiddleware`, ./s3-client.ts), and resolving it for each request cost ~0.2–0.3 ms of CPU per
 * put. Idempotent: a client given twice (tests) gets it once.
 */
export function signPayloadHashes(client: S3Client): void {
  // The SDK types the client's stack by its own command union; only the request is touched here.
  const stack = client.middlewareStack as unknown as {
    add: (
      middleware: (next: (args: unknown) => Promise<unknown>) => (args: unknown) => Promise<unknown>,
      options: { step: 'build'; name: string },
    ) => void;
    identify: () => string[];
  };
  if (stack.identify().some((entry) => entry.startsWith(`${NAME} `))) return;
  stack.add(
    (next) => async (args) => {
      const { input, request } = args as {
        input?: { ChecksumSHA256?: unknown; Body?: unknown };
        request?: { headers?: Record<string, string> };
      };
      const checksum = input?.ChecksumSHA256;
      if (typeof checksum === 'string' && input?.Body !== undefined && request?.headers !== undefined)
        request.headers['x-amz-content-sha256'] = Buffer.from(checksum, 'base64').toString('hex');
      return next(args);
    },
    { step: 'build', name: NAME },
  );
}
