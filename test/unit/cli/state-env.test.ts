import { describe, expect, it } from 'vitest';
import { readLockOptions } from '../../../src/cli/parse/state-env.js';

describe('readLockOptions', () => {
  it('reads the lease from RUNNER_LOCK_STALE_MS, refreshed every sixth of it', () => {
    expect(readLockOptions({})).toEqual({});
    expect(readLockOptions({ RUNNER_LOCK_STALE_MS: '60000' })).toEqual({
      lock: { staleAfterMs: 60_000, heartbeatMs: 10_000 },
    });
  });

  it('refuses a lease too short to refresh or not a number', () => {
    for (const value of ['100', 'soon', '1.5e3.2', '-30000']) {
      expect(() => readLockOptions({ RUNNER_LOCK_STALE_MS: value })).toThrow(/RUNNER_LOCK_STALE_MS must be/);
    }
  });

  it('fakes a container for tests', () => {
    const identity = { hostname: 'h', bootId: 'b', pidNamespace: 'pid:[1]' };
    expect(readLockOptions({ RUNNER_TEST_LOCK_IDENTITY: JSON.stringify({ pid: 1, ...identity }) })).toEqual({
      lock: { identity, pid: 1 },
    });
  });
});
