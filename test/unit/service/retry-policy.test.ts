import { describe, expect, it } from 'vitest';
import {
  decideRetry,
  DEFAULT_RETRY_OPTIONS,
  parseRetryAfter,
  type FailureInfo,
  type RetryInput,
} from '../../../src/service/retry-policy.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function decide(failure: FailureInfo, overrides: Partial<RetryInput> = {}) {
  return decideRetry({
    attempt: 1,
    failure,
    safety: 'safe',
    now: NOW,
    random: 0.5,
    options: DEFAULT_RETRY_OPTIONS,
    ...overrides,
  });
}

const http = (status: number, extra: { errorCode?: string; retryAfter?: string } = {}): FailureInfo => ({
  type: 'status',
  status,
  ...extra,
});

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('7', NOW)).toBe(7000);
    expect(parseRetryAfter(' 0 ', NOW)).toBe(0);
  });
  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter(new Date(NOW + 12_000).toUTCString(), NOW)).toBe(12_000);
  });
  it('treats a past date as no wait and garbage as absent', () => {
    expect(parseRetryAfter(new Date(NOW - 60_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
  });
});

describe('decideRetry', () => {
  it('honours Retry-After on 429, in seconds and as a date', () => {
    expect(decide(http(429, { retryAfter: '3' }))).toMatchObject({ retry: true, delayMs: 3000 });
    expect(decide(http(429, { retryAfter: new Date(NOW + 5000).toUTCString() }))).toMatchObject({
      retry: true,
      delayMs: 5000,
    });
  });

  it('waits the queue-full delay for AGENT_QUEUE_FULL without Retry-After, whatever the status', () => {
    expect(decide(http(503, { errorCode: 'AGENT_QUEUE_FULL' }))).toMatchObject({
      retry: true,
      delayMs: 60_000,
    });
    const options = { ...DEFAULT_RETRY_OPTIONS, queueFullDelayMs: 1234 };
    expect(decide(http(200, { errorCode: 'AGENT_QUEUE_FULL' }), { options })).toMatchObject({
      retry: true,
      delayMs: 1234,
    });
    expect(decide(http(429, { errorCode: 'AGENT_QUEUE_FULL', retryAfter: '2' }))).toMatchObject({
      delayMs: 2000,
    });
  });

  it('gives up when Retry-After asks for more than maxRetryAfterMs', () => {
    expect(decide(http(429, { retryAfter: '3600' })).retry).toBe(false);
  });

  it('never retries 400, 401, 402, 403, 404', () => {
    for (const status of [400, 401, 402, 403, 404]) {
      expect(decide(http(status)).retry, `HTTP ${status}`).toBe(false);
    }
  });

  it('backs off exponentially with full jitter, capped at maxDelayMs', () => {
    const options = { ...DEFAULT_RETRY_OPTIONS, maxRetries: 20 };
    const ceiling = (attempt: number) =>
      decideRetry({ attempt, failure: http(500), safety: 'safe', now: NOW, random: 0.999999, options });
    expect(ceiling(1)).toMatchObject({ delayMs: 499 });
    expect(ceiling(2)).toMatchObject({ delayMs: 999 });
    expect(ceiling(4)).toMatchObject({ delayMs: 3999 });
    expect(ceiling(12)).toMatchObject({ delayMs: 29_999 });
    expect(
      decideRetry({ attempt: 3, failure: http(502), safety: 'safe', now: NOW, random: 0, options }),
    ).toMatchObject({ retry: true, delayMs: 0 });
  });

  it('keeps every jittered delay within [0, ceiling)', () => {
    for (let attempt = 1; attempt <= 5; attempt++) {
      for (const random of [0, 0.1, 0.5, 0.9, 0.9999]) {
        const decision = decide(http(500), { attempt, random });
        if (!decision.retry) throw new Error('expected a retry');
        expect(decision.delayMs).toBeGreaterThanOrEqual(0);
        expect(decision.delayMs).toBeLessThan(Math.min(30_000, 500 * 2 ** (attempt - 1)));
      }
    }
  });

  it('bounds the number of attempts', () => {
    expect(decide(http(500), { attempt: 5 }).retry).toBe(true);
    expect(decide(http(500), { attempt: 6 }).retry).toBe(false);
    expect(decide(http(429, { retryAfter: '1' }), { attempt: 6 }).retry).toBe(false);
    const options = { ...DEFAULT_RETRY_OPTIONS, maxRetries: 0 };
    expect(decide({ type: 'network', failure: 'reset' }, { options }).retry).toBe(false);
  });

  it('retries timeouts, resets and refusals of safe requests', () => {
    for (const failure of ['timeout', 'reset', 'connect', 'other'] as const) {
      expect(decide({ type: 'network', failure }).retry, failure).toBe(true);
    }
  });

  it('never re-sends an unkeyed create after an ambiguous fault', () => {
    const unkeyed = { safety: 'unkeyed-create' as const };
    expect(decide(http(500), unkeyed).retry).toBe(false);
    expect(decide(http(503), unkeyed).retry).toBe(false);
    expect(decide({ type: 'network', failure: 'reset' }, unkeyed).retry).toBe(false);
    expect(decide({ type: 'network', failure: 'timeout' }, unkeyed).retry).toBe(false);
    expect(decide({ type: 'network', failure: 'other' }, unkeyed).retry).toBe(false);
  });

  it('re-sends an unkeyed create only after failures that prove nothing was created', () => {
    const unkeyed = { safety: 'unkeyed-create' as const };
    expect(decide({ type: 'network', failure: 'connect' }, unkeyed).retry).toBe(true);
    expect(decide(http(429, { retryAfter: '1' }), unkeyed)).toMatchObject({ retry: true, delayMs: 1000 });
    expect(decide(http(503, { errorCode: 'AGENT_QUEUE_FULL' }), unkeyed)).toMatchObject({
      retry: true,
      delayMs: 60_000,
    });
  });
});
