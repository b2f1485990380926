import { join, resolve } from 'node:path';
import { parseS3Location } from '../results/backends/s3/s3-location.js';
import { isS3Output } from '../results/s3-results.js';

/**
 * A run's output location as the commands name it: a folder of this machine, or an S3-compatible
 * bucket prefix (`s3://bucket/prefix`, #30.3). Where a folder is resolved and joined as a path, a
 * bucket is checked (a URL with credentials is refused, exit 2) and joined with '/': it is the same
 * place from every machine, never a path relative to this one's working folder.
 */
export { isS3Output };

/** `--output`, RUNNER_OUTPUT or a manifest's `output:`: a folder resolved from `base`, or a bucket as written. */
export function resolveOutputLocation(base: string, given: string): string {
  return isS3Output(given) ? parseS3Location(given).display : resolve(base, given);
}

/** `root/segment/…`: a path for a folder, a longer prefix for a bucket. */
export function joinOutputLocation(root: string, ...segments: string[]): string {
  return isS3Output(root) ? [parseS3Location(root).display, ...segments].join('/') : join(root, ...segments);
}

/**
 * A run's output location named for a message: "the output folder /path" or "the bucket s3://b/p", so
 * a bucket output is never called a folder (#30.3).
 */
export function describeOutput(location: string): string {
  return isS3Output(location) ? `the bucket ${location}` : `the output folder ${location}`;
}
