import type { StateTuning } from '../../app/apply-options.js';
import { UsageError } from '../../errors.js';
import type { AcquireLockOptions, HostIdentity } from '../../state/index.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The environment variables that tune how apply holds a run's state (docs/state.md), parsed once here
 * into typed options: a wrong value is a usage error before anything is read or sent.
 */
export function readStateTuning(env: Env): StateTuning {
  return { ...readSnapshotEvery(env), ...readLockOptions(env), ...readLeaseTtl(env) };
}

/**
 * `RUNNER_LOCK_STALE_MS=N`: the state lock's lease (docs/money.md),
 * refreshed every sixth of it. `RUNNER_TEST_LOCK_IDENTITY` (JSON: pid, hostname, bootId,
 * pidNamespace) makes this process look like another container: for tests only.
 */
export function readLockOptions(env: Env): {
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

/**
 * `RUNNER_SNAPSHOT_EVERY=N`: fewest journal records between two state snapshots during a run
 * (docs/state.md "Run state"); tests set a few to take snapshots all through a short run.
 */
function readSnapshotEvery(env: Env): { snapshotEvery?: number } {
  const text = env.RUNNER_SNAPSHOT_EVERY;
  if (text === undefined || text === '') return {};
  const every = Number(text);
  if (!Number.isSafeInteger(every) || every < 1) {
    throw new UsageError(
      `RUNNER_SNAPSHOT_EVERY must be a whole number of records, at least 1; received ${JSON.stringify(text)}.`,
    );
  }
  return { snapshotEvery: every };
}

/**
 * `RUNNER_LEASE_TTL_MS=N`: how long the PostgreSQL lease lasts without a heartbeat (docs/state.md "Where
 * state lives"); tests set about a second to see a lease expire.
 */
function readLeaseTtl(env: Env): { leaseTtlMs?: number } {
  const text = env.RUNNER_LEASE_TTL_MS;
  if (text === undefined || text === '') return {};
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms < 100) {
    throw new UsageError(
      `RUNNER_LEASE_TTL_MS must be a whole number of milliseconds, at least 100; received ${JSON.stringify(text)}.`,
    );
  }
  return { leaseTtlMs: ms };
}
