import { describe, expect, it } from 'vitest';
import { RunnerError, UsageError } from '../../../src/errors.js';
import { isS3Output, objectKeyOf, parseS3Location } from '../../../src/results/backends/s3/s3-location.js';
import { scrubCredentials } from '../../../src/results/backends/s3/s3-errors.js';

describe('parseS3Location (--output s3://bucket/prefix)', () => {
  it('reads the bucket and a prefix without its outer slashes', () => {
    expect(parseS3Location('s3://media-results/nightly/run-1/')).toEqual({
      bucket: 'media-results',
      prefix: 'nightly/run-1',
      display: 's3://media-results/nightly/run-1',
    });
    expect(parseS3Location('s3://media-results')).toEqual({
      bucket: 'media-results',
      prefix: '',
      display: 's3://media-results',
    });
    expect(isS3Output('S3://b/x')).toBe(true);
    expect(isS3Output('./runner-output')).toBe(false);
  });

  it('refuses a URL with credentials (exit 2), showing neither the key nor the secret', () => {
    for (const url of [
      's3://AKIAEXAMPLEKEY:SuperSecret/with/slash@media-results/p',
      's3://AKIAEXAMPLEKEY@media-results',
    ]) {
      let error: unknown;
      try {
        parseS3Location(url);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(UsageError);
      const text = `${(error as UsageError).message} ${(error as UsageError).hint ?? ''}`;
      expect(text).toContain('s3://***@media-results');
      expect(text).not.toContain('AKIAEXAMPLEKEY');
      expect(text).not.toContain('SuperSecret');
    }
  });

  it('refuses what is not a bucket name, and dot segments in the prefix', () => {
    expect(() => parseS3Location('s3://b/x')).toThrow(UsageError);
    expect(() => parseS3Location('s3://Upper_Case/x')).toThrow(UsageError);
    expect(() => parseS3Location('s3:///x')).toThrow(UsageError);
    expect(() => parseS3Location('s3://bucket-a/../x')).toThrow(UsageError);
  });

  it('puts a result key under the prefix, and refuses a key that is not a plain relative path', () => {
    const location = parseS3Location('s3://media-results/nightly');
    expect(objectKeyOf(location, '.superseded/attempt-1/hero.png')).toBe(
      'nightly/.superseded/attempt-1/hero.png',
    );
    expect(objectKeyOf(parseS3Location('s3://media-results'), 'hero.png')).toBe('hero.png');
    for (const key of ['', '/abs.png', 'a//b.png', '../up.png', 'a/./b.png']) {
      expect(() => objectKeyOf(location, key)).toThrow(RunnerError);
    }
  });
});

describe('scrubCredentials', () => {
  it("removes the environment's access key, secret and session token from a text", () => {
    const env = {
      AWS_ACCESS_KEY_ID: 'AKIAKEY1',
      AWS_SECRET_ACCESS_KEY: 'sek/ret+1',
      AWS_SESSION_TOKEN: 'tok3n',
    };
    expect(scrubCredentials('key AKIAKEY1 secret sek/ret+1 token tok3n', env)).toBe(
      'key *** secret *** token ***',
    );
  });
});
