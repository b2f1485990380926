import { UsageError } from '../errors.js';
import type { HostIdentity } from '../state/lock-identity.js';
import type { AcquireLockOptions } from '../state/lock.js';

/**
 * `RUNNER_LOCK_STALE_MS=N`: the state lock's lease (docs/money.md),
 * refreshed every sixth of it. `RUNNER_TEST_LOCK_IDENTITY` (JSON: pid, hostname, bootId,
 * pidNamespace) makes this process look like another container: for tests only.
 */
export function readLockOptions(env: Readonly<Record<string, string | undefined>>): {
  lock?: AcquireLockOptions;
} {
  const lock: AcquireLockOptions = {};
  const stale = env.RUNNER_LOCK_STALE_MS;
  if (stale !== undefined && stale !== '') {
    const ms = Number(stale);
    if (!Number.isSafeInteger(ms) || ms < 600) {
      throw new UsageError(
        `RUNNER_LOCK_STALE_MS must be a whole number of milliseconds, at least 600; received ${JSON.stringify(stale)}.`,
      );
    }
    lock.staleAfterMs = ms;
    lock.heartbeatMs = Math.floor(ms / 6);
  }
  const faked = env.RUNNER_TEST_LOCK_IDENTITY;
  if (faked !== undefined && faked !== '') {
    let parsed: { pid?: number } & HostIdentity;
    try {
      parsed = JSON.parse(faked) as { pid?: number } & HostIdentity;
    } catch {
      throw new UsageError(`RUNNER_TEST_LOCK_IDENTITY must be JSON; received ${JSON.stringify(faked)}.`);
    }
    const { pid, ...identity } = parsed;
    lock.identity = identity;
    if (pid !== undefined) lock.pid = pid;
  }
  return Object.keys(lock).length === 0 ? {} : { lock };
}
