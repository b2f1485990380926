import { describe, expect, it } from 'vitest';
import {
  RateLimitedError,
  ResendWithheldError,
  ServerError,
  type RequestContext,
} from '../../../src/service/errors.js';
import { createRateLimitGate } from '../../../src/service/rate-limit-gate.js';
import { runWithRetry, type RetryContext } from '../../../src/service/retry-loop.js';
import { DEFAULT_RETRY_OPTIONS } from '../../../src/service/retry-policy.js';
import { createFakeClock, type FakeClock } from './fake-clock.js';

const CREATE: RequestContext = { method: 'POST', path: '/stock-videos/create' };

/** A create's retry loop whose `beforeResend` answers from `holds`, and logs when it was asked. */
function createLoop(clock: FakeClock, holds: () => boolean, extra: Partial<RetryContext> = {}) {
  const asked: number[] = [];
  const ctx: RetryContext = {
    ...CREATE,
    safety: 'unkeyed-create',
    clock,
    random: () => 0,
    options: DEFAULT_RETRY_OPTIONS,
    gate: createRateLimitGate(clock),
    beforeResend: () => {
      asked.push(clock.now());
      return Promise.resolve(holds());
    },
    ...extra,
  };
  return { ctx, asked };
}

describe('runWithRetry: beforeResend (a create re-checks its lease before each re-send)', () => {
  it('after a 429 wait, a lost lease withholds the re-send: one send, a STATE_LOCKED error, nothing made', async () => {
    const clock = createFakeClock();
    const start = clock.now();
    const { ctx, asked } = createLoop(clock, () => false);
    let sends = 0;
    const error = await runWithRetry(ctx, () => {
      sends++;
      return Promise.reject(new RateLimitedError(CREATE, { status: 429, retryAfter: '40' }));
    }).catch((e: unknown) => e);
    expect(sends).toBe(1);
    // Asked once, after the whole Retry-After: the lease is checked when the re-send would go out.
    expect(asked).toEqual([start + 40_000]);
    expect(error).toBeInstanceOf(ResendWithheldError);
    expect(error).toMatchObject({ code: 'STATE_LOCKED', earlierSendMayHaveActed: false });
    expect((error as Error).message).toMatch(/not sent again after .*HTTP 429/);
  });

  it('a withheld re-send after a 5xx says the earlier send may have made the job', async () => {
    const clock = createFakeClock();
    const { ctx } = createLoop(clock, () => false, { safety: 'safe', resendWindowMs: 270_000 });
    let sends = 0;
    const error = await runWithRetry(ctx, () => {
      sends++;
      return Promise.reject(new ServerError(CREATE, { status: 500 }));
    }).catch((e: unknown) => e);
    expect(sends).toBe(1);
    expect(error).toMatchObject({ code: 'STATE_LOCKED', earlierSendMayHaveActed: true });
  });

  it('is not asked before the first send, and lets each re-send go while the lease holds', async () => {
    const clock = createFakeClock();
    const { ctx, asked } = createLoop(clock, () => true);
    let sends = 0;
    const answer = await runWithRetry(ctx, () => {
      sends++;
      if (sends < 3) return Promise.reject(new RateLimitedError(CREATE, { status: 429, retryAfter: '2' }));
      return Promise.resolve('job-1');
    });
    expect(answer).toBe('job-1');
    expect(sends).toBe(3);
    expect(asked).toHaveLength(2);
  });

  it('the lease lost during a second wait stops the third send', async () => {
    const clock = createFakeClock();
    let checks = 0;
    const { ctx } = createLoop(clock, () => ++checks < 2);
    let sends = 0;
    const error = await runWithRetry(ctx, () => {
      sends++;
      return Promise.reject(new RateLimitedError(CREATE, { status: 429, retryAfter: '2' }));
    }).catch((e: unknown) => e);
    expect(sends).toBe(2);
    expect(error).toBeInstanceOf(ResendWithheldError);
  });
});
