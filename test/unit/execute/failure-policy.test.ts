import { describe, it, expect } from 'vitest';
import {
  DEFAULT_RETRY_POLICY,
  computeRetryDelay,
  decideFailure,
} from '../../../src/execute/failure-policy.js';

describe('decideFailure', () => {
  it.each([
    ['GENERATION_TIMEOUT', 'retry', /retry usually works/],
    ['QUOTA_EXHAUSTED', 'defer', /after a few hours/],
    ['PROMPT_UNCLEAR', 'fail', /change the prompt/],
    ['CONTENT_REJECTED', 'fail', /change the prompt/],
    ['TRANSPARENT_CREATION_FAILED', 'fail', /more explicit in the prompt/],
    ['REFERENCE_DOWNLOAD_FAILED', 'fail', /fix the link/],
    ['SESSION_EXPIRED', 'fail', /contact support/],
    ['INVALID_PAYLOAD', 'fail', /contact support/],
    ['SOMETHING_NEW', 'fail', /unknown failure kind "SOMETHING_NEW"/],
    [undefined, 'fail', /without a failureKind/],
  ] as const)('%s → %s', (kind, action, advice) => {
    const decision = decideFailure(kind, 1, DEFAULT_RETRY_POLICY);
    expect(decision.action).toBe(action);
    expect(decision.advice).toMatch(advice);
  });

  it('fails a retryable kind once maxAttempts attempts were used', () => {
    expect(decideFailure('GENERATION_TIMEOUT', 2, DEFAULT_RETRY_POLICY).action).toBe('retry');
    const last = decideFailure('GENERATION_TIMEOUT', 3, DEFAULT_RETRY_POLICY);
    expect(last.action).toBe('fail');
    expect(last.advice).toMatch(/Gave up after 3 attempts/);
    expect(decideFailure('QUOTA_EXHAUSTED', 3, DEFAULT_RETRY_POLICY).action).toBe('fail');
  });

  it('takes per-kind overrides', () => {
    const policy = {
      ...DEFAULT_RETRY_POLICY,
      actions: { PROMPT_UNCLEAR: 'retry' as const, GENERATION_TIMEOUT: 'fail' as const },
    };
    expect(decideFailure('PROMPT_UNCLEAR', 1, policy).action).toBe('retry');
    expect(decideFailure('GENERATION_TIMEOUT', 1, policy).action).toBe('fail');
  });

  it('backs off exponentially', () => {
    expect(
      [1, 2, 3].map((attempt) => computeRetryDelay({ ...DEFAULT_RETRY_POLICY, backoffMs: 100 }, attempt)),
    ).toEqual([100, 200, 400]);
  });
});
