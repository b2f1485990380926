import { UsageError } from '../../../errors.js';
import { checkResultKey } from '../../result-key.js';

/** Where an `s3://bucket/prefix` output puts a run's results. */
export interface S3Location {
  readonly bucket: string;
  /** The key prefix without leading or trailing '/', or '' for the bucket's root. */
  readonly prefix: string;
  /** `s3://bucket/prefix` as messages and the state show it. */
  readonly display: string;
}

/** Whether an output (`--output`, `RUNNER_OUTPUT`, `runner.config.yaml`) names an S3 bucket. */
export const isS3Output = (output: string): boolean => /^s3:\/\//i.test(output);

// S3's rules for a bucket name (and most S3-compatible stores'): 3-63 of a-z 0-9 . -, starting and
// ending with a letter or digit.
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/**
 * Reads `s3://bucket/prefix`. Credentials never come from the URL: a URL given on the command line
 * ends up in shell history, CI logs and `ps`, so one that carries any (`s3://key:secret@bucket`) is
 * refused, and the message shows neither part; the SDK's default chain supplies them instead.
 */
export function parseS3Location(text: string): S3Location {
  const rest = text.replace(/^s3:\/\//i, '');
  // `key@bucket`, or `key:secret@bucket` where the secret may itself hold '/' (AWS secrets do).
  const credentials = /^[^/]*@/.exec(rest) ?? /^[^/@]*:[^@]*@/.exec(rest);
  if (credentials !== null) {
    const shown = `s3://***@${rest.slice(credentials[0].length)}`;
    throw new UsageError(
      `The output ${shown} carries credentials in its URL: they would be seen in shell history, CI logs and the process list, so it is refused.`,
      {
        hint: 'Drop them from the URL and give them the AWS way: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile (AWS_PROFILE), or web identity (GitHub OIDC with aws-actions/configure-aws-credentials).',
      },
    );
  }
  const authority = rest.split('/', 1)[0] ?? '';
  const bucket = authority;
  if (!BUCKET_NAME.test(bucket) || bucket.includes('..')) {
    throw new UsageError(
      `The output ${JSON.stringify(text)} must name a bucket as s3://bucket/prefix; ${JSON.stringify(bucket)} is not a bucket name (3-63 characters of a-z, 0-9, '.', '-').`,
    );
  }
  const prefix = rest
    .slice(authority.length)
    .split('/')
    .filter((part) => part !== '')
    .join('/');
  if (prefix.split('/').some((part) => part === '.' || part === '..')) {
    throw new UsageError(
      `The output ${JSON.stringify(text)} has a '.' or '..' in its prefix; write the prefix plainly.`,
    );
  }
  return { bucket, prefix, display: prefix === '' ? `s3://${bucket}` : `s3://${bucket}/${prefix}` };
}

/** The object key of `key` (relative to the run's output root) under the location's prefix. */
export function objectKeyOf(location: S3Location, key: string): string {
  checkResultKey(key);
  return location.prefix === '' ? key : `${location.prefix}/${key}`;
}
