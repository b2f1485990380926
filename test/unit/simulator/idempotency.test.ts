import { describe, expect, it } from 'vitest';
import { createIdempotencyStore } from '../../../src/simulator/idempotency.js';

describe('simulator idempotency store', () => {
  it('returns the remembered job within the window and forgets it after', () => {
    const store = createIdempotencyStore(1000);
    expect(store.lookup('k', 0)).toBeUndefined();
    store.remember('k', 'job_1', 100);
    expect(store.lookup('k', 100)).toBe('job_1');
    expect(store.lookup('k', 1099)).toBe('job_1');
    expect(store.lookup('k', 1100)).toBeUndefined();
    expect(store.lookup('k', 500)).toBeUndefined();
  });

  it('keeps keys apart', () => {
    const store = createIdempotencyStore(1000);
    store.remember('a', 'job_a', 0);
    store.remember('b', 'job_b', 0);
    expect(store.lookup('a', 1)).toBe('job_a');
    expect(store.lookup('b', 1)).toBe('job_b');
  });
});
