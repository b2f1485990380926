/**
 * s3rver for a benchmark, as `./pg-server.js` is PostgreSQL: on 127.0.0.1 (a free port), storing into
 * `dir/s3`, with a bucket `results`. `env` is what a child process needs to reach it: s3rver's built-in
 * credentials, its endpoint, and AWS config files in `dir` that do not exist, so that nothing of the
 * machine's own AWS setup is read. `close()` stops it; the folder is the caller's to remove.
 */
import { join } from 'node:path';

export async function startS3Server(dir) {
  const { default: S3rver } = await import('s3rver');
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    directory: join(dir, 's3'),
    silent: true,
    configureBuckets: [{ name: 'results' }],
  });
  const { port } = await server.run();
  return {
    env: {
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      AWS_CONFIG_FILE: join(dir, 'aws-config'),
      AWS_SHARED_CREDENTIALS_FILE: join(dir, 'aws-credentials'),
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    close: () => server.close(),
  };
}
