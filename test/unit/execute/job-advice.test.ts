import { describe, expect, it } from 'vitest';
import { adviseJob } from '../../../src/execute/job-advice.js';

const commands = {
  retryFailed: 'runner apply m.yaml --retry-failed',
  resend: 'runner apply m.yaml --resend-uncertain',
};

/** One piece of advice for status, the report, the results index, JUnit and the step summary (#33.11). */
describe('adviseJob', () => {
  it.each([
    ['PROMPT_UNCLEAR', 'The description is too vague: change the prompt.'],
    [
      'REFERENCE_DOWNLOAD_FAILED',
      'A reference image could not be fetched: fix the link (some hosts block server-side fetches).',
    ],
    [
      'GENERATION_TIMEOUT',
      'The job ran out of time; a retry usually works. `runner apply m.yaml --retry-failed` re-sends it.',
    ],
    [
      'SESSION_EXPIRED',
      'A problem on the service side: contact support. Once it is solved, `runner apply m.yaml --retry-failed` re-sends it.',
    ],
    [
      'SOMETHING_NEW',
      'The service reported an unknown failure kind "SOMETHING_NEW": `runner apply m.yaml --retry-failed` re-sends it; contact support if it repeats.',
    ],
  ])('a job failed with %s', (failureKind, advice) => {
    expect(adviseJob({ status: 'failed', failureKind }, commands)).toBe(advice);
  });

  it('a refused create by its code, else what the error names', () => {
    expect(adviseJob({ status: 'failed', error: 'SERVICE_VALIDATION: size 9999x9999' }, commands)).toMatch(
      /fix the job in the manifest; nothing was created or charged/,
    );
    expect(adviseJob({ status: 'failed', error: 'HTTP_500: boom' }, commands)).toBe(
      'The service refused the job: fix what the error names, then apply again.',
    );
  });

  it('deferred and uncertain jobs; nothing for the others', () => {
    expect(
      adviseJob({
        status: 'deferred',
        failureKind: 'QUOTA_EXHAUSTED',
        notBefore: '2026-01-01T03:00:00.000Z',
      }),
    ).toBe(
      'The service is temporarily at capacity; retry after a few hours. A later apply retries it from 1 Jan 2026, 03:00:00 UTC.',
    );
    expect(adviseJob({ status: 'uncertain' }, commands)).toMatch(
      /may exist and be paid for\. Check the service first; `runner apply m\.yaml --resend-uncertain` sends it again\.$/,
    );
    expect(adviseJob({ status: 'uncertain' })).toContain('`runner apply … --resend-uncertain`');
    for (const status of ['done', 'pending', 'open', 'creating', 'downloading'])
      expect(adviseJob({ status, failureKind: 'SESSION_EXPIRED' }, commands)).toBeUndefined();
  });
});
