import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { deriveIdempotencyKey, type IdempotencyKeyInput } from '../../../src/state/idempotency-key.js';

const input = fc.record({
  pipeline: fc.string(),
  runId: fc.string(),
  jobId: fc.string(),
  payloadHash: fc.string(),
  attempt: fc.integer({ min: 1, max: 1000 }),
});

describe('deriveIdempotencyKey', () => {
  it('is rn- plus 32 hex digits', () => {
    fc.assert(fc.property(input, (value) => /^rn-[0-9a-f]{32}$/.test(deriveIdempotencyKey(value))));
  });

  it('gives the same key for the same inputs', () => {
    fc.assert(
      fc.property(input, (value) => deriveIdempotencyKey(value) === deriveIdempotencyKey({ ...value })),
    );
  });

  it('changes when any field changes', () => {
    const fields = ['pipeline', 'runId', 'jobId', 'payloadHash', 'attempt'] as const;
    fc.assert(
      fc.property(input, fc.constantFrom(...fields), fc.string({ minLength: 1 }), (value, field, extra) => {
        const changed: IdempotencyKeyInput =
          field === 'attempt'
            ? { ...value, attempt: value.attempt + 1 }
            : { ...value, [field]: value[field] + extra };
        return deriveIdempotencyKey(changed) !== deriveIdempotencyKey(value);
      }),
    );
  });

  it('keeps fields apart (no separator ambiguity)', () => {
    const base = { runId: 'r', payloadHash: 'h', attempt: 1 };
    expect(deriveIdempotencyKey({ ...base, pipeline: 'a|b', jobId: 'c' })).not.toBe(
      deriveIdempotencyKey({ ...base, pipeline: 'a', jobId: 'b|c' }),
    );
  });
});
