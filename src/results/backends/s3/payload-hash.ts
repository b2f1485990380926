import type { PutObjectCommand, UploadPartCommand } from '@aws-sdk/client-s3';

/**
 * Sets the SigV4 payload hash (`x-amz-content-sha256`, signed) of a buffered body to its SHA-256,
 * already measured: given none, the SDK hashes the whole body once more for it. A store that checks
 * signed payloads (AWS S3, MinIO) then refuses a body changed on the way.
 */
export function signPayloadHash(command: PutObjectCommand | UploadPartCommand, sha256Hex: string): void {
  // One middleware for either command; the SDK types each command's stack apart.
  const stack = command.middlewareStack as PutObjectCommand['middlewareStack'];
  stack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers !== undefined) request.headers['x-amz-content-sha256'] = sha256Hex;
      return next(args);
    },
    { step: 'build', name: 'runnerPayloadSha256' },
  );
}
