import { RunnerError, isRunnerError } from '../../../errors.js';
import type { S3Location } from './s3-location.js';

/** The parts of an AWS SDK error this file reads (S3ServiceException, a Node network error, …). */
interface SdkErrorLike {
  name?: string;
  code?: string;
  message?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string | undefined> };
}

const CREDENTIAL_HINT =
  'Give credentials the AWS way: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), a profile (AWS_PROFILE), or web identity (GitHub OIDC with aws-actions/configure-aws-credentials).';

/**
 * Turns what the SDK threw while `doing` something (e.g. "write the probe object") into a RESULTS_UNREACHABLE
 * RunnerError that names the bucket, says which of the usual causes it is and what to fix. The SDK's
 * own text is kept only as a detail, scrubbed of the credentials in the environment.
 */
export function describeS3Error(location: S3Location, doing: string, error: unknown): RunnerError {
  if (isRunnerError(error)) return error;
  const e = (typeof error === 'object' && error !== null ? error : {}) as SdkErrorLike;
  const name = e.name ?? e.Code ?? e.code ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const detail = scrubCredentials(
    `${name}${status === undefined ? '' : ` (HTTP ${status})`}: ${e.message ?? String(error)}`,
  );
  const where = `the bucket ${location.bucket} (${location.display})`;
  const fail = (what: string, hint: string) =>
    new RunnerError('RESULTS_UNREACHABLE', `Could not ${doing} in ${where}: ${what}. ${detail}`, {
      cause: error,
      hint,
    });

  if (name === 'NoSuchBucket') {
    return fail(
      'the bucket does not exist',
      'Create the bucket, or correct its name in --output (and the endpoint in AWS_ENDPOINT_URL_S3 for a store that is not AWS).',
    );
  }
  if (['ExpiredToken', 'ExpiredTokenException', 'TokenRefreshRequired', 'RequestExpired'].includes(name)) {
    return fail(
      'the credential has expired',
      `Renew it (aws sso login, a new session token, or a fresh OIDC role session). ${CREDENTIAL_HINT}`,
    );
  }
  if (name === 'CredentialsProviderError' || /could not load credentials/i.test(e.message ?? '')) {
    return fail('no AWS credentials were found', CREDENTIAL_HINT);
  }
  const region = e.$response?.headers?.['x-amz-bucket-region'];
  if (
    ['PermanentRedirect', 'AuthorizationHeaderMalformed', 'IllegalLocationConstraintException'].includes(
      name,
    ) ||
    status === 301 ||
    region !== undefined
  ) {
    return fail(
      `the bucket is in another region${region === undefined ? '' : ` (${region})`} than the one configured`,
      `Set AWS_REGION${region === undefined ? '' : `=${region}`} (or the profile's region) to the bucket's region.`,
    );
  }
  if (['InvalidAccessKeyId', 'SignatureDoesNotMatch'].includes(name)) {
    return fail('the credential is not accepted (unknown access key or wrong secret)', CREDENTIAL_HINT);
  }
  if (name === 'AccessDenied' || name === 'Forbidden' || status === 403) {
    return fail(
      'access denied',
      'Grant the credential s3:PutObject, s3:GetObject, s3:DeleteObject and s3:ListBucketMultipartUploads / s3:AbortMultipartUpload on the bucket and prefix.',
    );
  }
  if (isUnanswered(e)) {
    return fail(
      'the endpoint does not answer',
      "Check AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL (or the profile's endpoint_url) and that the store is up and reachable.",
    );
  }
  if (status !== undefined && status >= 500) {
    return fail(
      `the store failed (HTTP ${status}) after the SDK's retries`,
      'It may be a passing fault of the store: run the command again (nothing is stored twice).',
    );
  }
  return fail(
    'the store refused the request',
    'Check the bucket, its permissions and the endpoint, then run the command again.',
  );
}

const UNANSWERED_CODES = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
];

function isUnanswered(e: SdkErrorLike): boolean {
  return (
    (e.code !== undefined && UNANSWERED_CODES.includes(e.code)) ||
    e.name === 'TimeoutError' ||
    e.name === 'RequestTimeout'
  );
}

/** Removes the environment's credential values from a text (an SDK message must never carry them). */
export function scrubCredentials(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  for (const name of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']) {
    const value = env[name];
    if (value !== undefined && value.length >= 4) out = out.split(value).join('***');
  }
  return out;
}
