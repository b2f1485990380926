import { describe, expect, it } from 'vitest';
import { capText } from '../../../src/service/cap-text.js';
import { buildJobRecord } from '../../../src/service/job-status.js';
import { createRateLimitGate, type SharedRateLimit } from '../../../src/service/rate-limit-gate.js';
import { runWithRetry } from '../../../src/service/retry-loop.js';
import { DEFAULT_RETRY_OPTIONS } from '../../../src/service/retry-policy.js';
import { RateLimitedError } from '../../../src/service/errors.js';
import type { ClientEvent } from '../../../src/service/client-event.js';
import { checkSchema, coerceNumericStrings } from '../../../src/service/schemas.js';
import { createFakeClock } from './fake-clock.js';

describe('coerceNumericStrings', () => {
  const schema = {
    type: 'object',
    properties: {
      a: { type: ['number', 'null'] },
      b: { type: 'string' },
      list: { type: 'array', items: { type: 'object', properties: { n: { type: 'number' } } } },
    },
  };

  it('reads numeric strings as numbers where the schema wants a number, at any depth', () => {
    expect(coerceNumericStrings({ a: ' 12.5 ', b: '7', list: [{ n: '-3' }, { n: '1e3' }] }, schema)).toEqual({
      a: 12.5,
      b: '7',
      list: [{ n: -3 }, { n: 1000 }],
    });
  });

  it('leaves null, booleans and words alone for the schema to judge', () => {
    expect(coerceNumericStrings({ a: null }, schema)).toEqual({ a: null });
    expect(coerceNumericStrings({ a: true }, schema)).toEqual({ a: true });
    expect(coerceNumericStrings({ a: 'lots' }, schema)).toEqual({ a: 'lots' });
    expect(coerceNumericStrings({ a: '' }, schema)).toEqual({ a: '' });
  });

  it('applies to the service answers api-notes names; the model list keeps its price as sent', () => {
    expect(checkSchema('job-creation', { jobId: 'j', queuePosition: '4' }, 'data')).toEqual({
      ok: true,
      value: { jobId: 'j', queuePosition: 4 },
    });
    // A model's price is read (and an impossible one refused, naming the model) when a job uses it.
    expect(
      checkSchema(
        'model-list',
        [{ slug: 's', displayName: 'S', category: 'image', creditCost: 'x' }],
        'data',
      ),
    ).toEqual({ ok: true, value: [{ slug: 's', displayName: 'S', category: 'image', creditCost: 'x' }] });
  });
});

describe('buildJobRecord beyond the spec', () => {
  it('looks in resultImages, resultUrls, resultUrl, then resultImage', () => {
    expect(buildJobRecord({ jobId: 'j', status: 'complete', resultUrls: ['a', 'b'] }).resultUrls).toEqual([
      'a',
      'b',
    ]);
    expect(buildJobRecord({ jobId: 'j', status: 'complete', resultImage: 'c' }).resultUrls).toEqual(['c']);
    expect(
      buildJobRecord({ jobId: 'j', status: 'COMPLETE', resultUrl: 'u', resultImage: 'c' }).resultUrls,
    ).toEqual(['u']);
  });

  it('names every field of a complete job without a result', () => {
    const record = buildJobRecord({ jobId: 'j', status: 'complete', resultUrl: null, files: ['x'] });
    expect(record.resultUrls).toEqual([]);
    expect(record.unrecognizedResult).toBe('jobId "j", status "complete", resultUrl null, files ["x"]');
  });

  it('joins failure text from error, errorMessage and step, capped', () => {
    expect(
      buildJobRecord({ jobId: 'j', status: 'failed', errorMessage: 'boom', step: 'upscale' }).error,
    ).toBe('boom; step: upscale');
    const long = buildJobRecord({ jobId: 'j', status: 'error', error: 'x'.repeat(10_000) }).error ?? '';
    expect(long).toBe(`${'x'.repeat(2048)}… [7952 more characters cut]`);
  });

  it('never takes an unknown status for success', () => {
    expect(buildJobRecord({ jobId: 'j', status: 'finished?', resultUrl: 'u' })).toMatchObject({
      phase: 'unknown',
      resultUrls: [],
    });
  });
});

describe('capText', () => {
  it('keeps short text and says how much it cut', () => {
    expect(capText('abc', 5)).toBe('abc');
    expect(capText('abcdefgh', 5)).toBe('abcde… [3 more characters cut]');
  });
});

describe('the rate-limit gate', () => {
  it('pauses once, extends to the later end, and lets requests through after it', async () => {
    const clock = createFakeClock();
    const gate = createRateLimitGate(clock);
    expect(gate.pause(1000)).toBe(true);
    expect(gate.pause(3000)).toBe(false);
    expect(gate.pause(500)).toBe(false);
    await gate.wait();
    expect(clock.sleeps).toEqual([3000]);
    expect(gate.pausedUntil()).toBeUndefined();
    expect(gate.pause(10)).toBe(true);
  });

  it('does not re-send a keyed create whose key window a pause outlasted', async () => {
    const clock = createFakeClock();
    const gate = createRateLimitGate(clock);
    let sends = 0;
    const error = await runWithRetry(
      {
        method: 'POST',
        path: '/agents/jobs/create',
        safety: 'safe',
        clock,
        random: () => 0,
        options: DEFAULT_RETRY_OPTIONS,
        gate,
        resendWindowMs: 270_000,
        earlierSendAt: clock.now() - 200_000,
      },
      () => {
        sends++;
        // Another request of the account was told to wait 100 s meanwhile.
        gate.pause(100_000);
        return Promise.reject(
          new RateLimitedError(
            { method: 'POST', path: '/agents/jobs/create' },
            { status: 429, retryAfter: '1' },
          ),
        );
      },
    ).catch((e: unknown) => e);
    expect(sends).toBe(1);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).earlierSendMayHaveActed).toBe(true);
  });

  it("shares a 429's pause with the account's other machines and waits out theirs, never echoing them back (#31.5)", async () => {
    const clock = createFakeClock();
    const gate = createRateLimitGate(clock);
    const shared: number[] = [];
    let others: ((delayMs: number) => void) | undefined;
    const account: SharedRateLimit = {
      share: (delayMs) => shared.push(delayMs),
      follow(pause) {
        others = pause;
        return () => (others = undefined);
      },
    };
    const stop = gate.share(account);
    // This machine met a 429: the others are told.
    expect(gate.pause(2_000)).toBe(true);
    expect(shared).toEqual([2_000]);
    await gate.wait();
    expect(clock.sleeps).toEqual([2_000]);
    // Another machine met one: this one waits too, and does not tell it back.
    others?.(5_000);
    expect(shared).toEqual([2_000]);
    await gate.wait();
    expect(clock.sleeps).toEqual([2_000, 5_000]);
    // A shorter pause from another machine never shortens a longer one in force here.
    gate.pause(10_000);
    others?.(1_000);
    await gate.wait();
    expect(clock.sleeps).toEqual([2_000, 5_000, 10_000]);
    stop();
    expect(others).toBeUndefined();
    gate.pause(1_000);
    expect(shared).toEqual([2_000, 10_000]);
  });

  it("says once per pause that it waits on another machine's 429, and until when (session 4, #31 point 2)", async () => {
    const clock = createFakeClock();
    const events: ClientEvent[] = [];
    const gate = createRateLimitGate(clock, (event) => events.push(event));
    let others: ((delayMs: number) => void) | undefined;
    gate.share({
      share: () => undefined,
      follow(pause) {
        others = pause;
        return () => (others = undefined);
      },
    });
    const start = clock.now();
    others?.(5_000);
    // Told again while it is paused (a longer pause, or the same one twice): still one line.
    others?.(6_000);
    others?.(6_000);
    expect(events).toEqual([
      {
        type: 'rate-limit-followed',
        delayMs: 5_000,
        until: start + 5_000,
        reason:
          'another machine of this account met HTTP 429 (too many requests); every request waits until 1 Jan 2026, 00:00:05 UTC',
      },
    ]);
    await gate.wait();
    // A later pause is a new one: one more line.
    others?.(2_000);
    expect(events.map((event) => event.type)).toEqual(['rate-limit-followed', 'rate-limit-followed']);
    // This machine's own 429 is reported by the request that met it, not here.
    await gate.wait();
    gate.pause(3_000);
    expect(events).toHaveLength(2);
  });
});
