import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import type { RunLease } from '../../state-store.js';

/**
 * How long a lease lasts without a heartbeat. A holder renews it every third of this; a process
 * that stops renewing (killed, paused, cut off) loses it this long after its last renewal.
 * @default 30 s; `RUNNER_LEASE_TTL_MS` overrides it (tests use about a second)
 */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/** One run of one pipeline: the key of its records and its lease. */
export interface RunKey {
  pipeline: string;
  runId: string;
}

/** A lease this process holds, with the fencing token every write of it carries. */
export interface PostgresLease extends RunLease {
  /** Grows by one at every acquisition: a write with an older token is refused by the database. */
  readonly token: string;
  /** Who holds it, as records and `lease inspect` show: host, pid and a random id. */
  readonly holder: string;
}

interface LeaseRow {
  holder: string;
  token: string;
  expires_at: Date;
  released: boolean;
  expired: boolean;
}

/**
 * Takes the run's lease in one transaction: a new run's lease is created, a released or expired one
 * is taken with the token raised by one (an expired one with a warning: its holder died or was cut
 * off, and its open attempts are followed from the records, never created again), a live one is a
 * STATE_LOCKED error naming its holder. Then heartbeats keep it, on `client`, every `ttlMs / 3`.
 */
export async function acquireLease(
  client: ClientBase,
  run: RunKey,
  options: { ttlMs: number; where: string },
): Promise<PostgresLease> {
  const holder = `${hostname()} pid ${process.pid} ${randomBytes(4).toString('hex')}`;
  const started = performance.now();
  await client.query('BEGIN');
  let row: LeaseRow | undefined;
  try {
    await client.query('INSERT INTO runner_runs (pipeline, run_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      run.pipeline,
      run.runId,
    ]);
    row = (
      await client.query<LeaseRow>(
        `SELECT holder, token::text AS token, expires_at, released, expires_at <= clock_timestamp() AS expired
           FROM runner_leases WHERE pipeline = $1 AND run_id = $2 FOR UPDATE`,
        [run.pipeline, run.runId],
      )
    ).rows[0];
    if (row !== undefined && !row.released && !row.expired) throw lockedError(run, row, options.where);
    const { rows } = await client.query<{ token: string }>(
      `INSERT INTO runner_leases (pipeline, run_id, holder, token, acquired_at, expires_at)
       VALUES ($1, $2, $3, 1, clock_timestamp(), clock_timestamp() + $4 * interval '1 millisecond')
       ON CONFLICT (pipeline, run_id) DO UPDATE SET holder = EXCLUDED.holder,
         token = runner_leases.token + 1, acquired_at = EXCLUDED.acquired_at,
         expires_at = EXCLUDED.expires_at, released = false
       RETURNING token::text AS token`,
      [run.pipeline, run.runId, holder, options.ttlMs],
    );
    await client.query('COMMIT');
    const token = rows[0]?.token ?? '';
    const warning =
      row !== undefined && !row.released
        ? `Took over the expired lease of ${row.holder} on run "${run.runId}" in ${options.where} (it stopped renewing it at ${row.expires_at.toISOString()}): its open jobs are followed, not created again.`
        : undefined;
    return startHeartbeat(client, run, { ...options, holder, token, warning, renewedAt: started });
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

function startHeartbeat(
  client: ClientBase,
  run: RunKey,
  lease: {
    ttlMs: number;
    where: string;
    holder: string;
    token: string;
    warning: string | undefined;
    renewedAt: number;
  },
): PostgresLease {
  let renewedAt = lease.renewedAt;
  let lost: string | undefined;
  let released = false;
  const renew = async (): Promise<boolean> => {
    const asked = performance.now();
    const { rowCount } = await client.query(
      `UPDATE runner_leases SET expires_at = clock_timestamp() + $4 * interval '1 millisecond'
        WHERE pipeline = $1 AND run_id = $2 AND token = $3 AND NOT released AND expires_at > clock_timestamp()`,
      [run.pipeline, run.runId, lease.token, lease.ttlMs],
    );
    if (rowCount === 1) renewedAt = asked;
    else lost ??= 'it expired or was taken over';
    return rowCount === 1;
  };
  const timer = setInterval(
    () => {
      if (released || lost !== undefined) return;
      renew().catch((error: unknown) => {
        // Not renewed this time: the lease runs out by itself unless a later heartbeat gets through.
        void error;
      });
    },
    Math.max(10, Math.floor(lease.ttlMs / 3)),
  );
  timer.unref();
  const lostError = (why: string) =>
    new RunnerError(
      'STATE_LOCKED',
      `This runner no longer holds the lease on run "${run.runId}" of pipeline "${run.pipeline}" in ${lease.where}: ${why}. It creates nothing more; its late writes are refused by the database.`,
      {
        hint: 'Another runner may be applying this run now: see `runner state lease`. Run apply again once it is done; jobs already created are followed, not paid twice.',
      },
    );
  const assertHeld = () => {
    if (released) throw lostError('it was released');
    if (lost !== undefined) throw lostError(lost);
    // Paused or cut off past its lifetime: the lease may be someone else's already.
    if (performance.now() - renewedAt >= lease.ttlMs)
      throw lostError(`it was last renewed over ${lease.ttlMs} ms ago`);
  };
  return {
    token: lease.token,
    holder: lease.holder,
    warning: lease.warning,
    assertHeld,
    async verify() {
      assertHeld();
      if (!(await renew())) throw lostError(lost ?? 'it expired or was taken over');
    },
    async release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      await client
        .query(
          `UPDATE runner_leases SET released = true, expires_at = clock_timestamp()
            WHERE pipeline = $1 AND run_id = $2 AND token = $3`,
          [run.pipeline, run.runId, lease.token],
        )
        .catch(() => undefined);
    },
  };
}

function lockedError(run: RunKey, row: LeaseRow, where: string): RunnerError {
  return new RunnerError(
    'STATE_LOCKED',
    `Another runner (${row.holder}) holds the lease on run "${run.runId}" of pipeline "${run.pipeline}" in ${where}, until ${row.expires_at.toISOString()} unless it renews it.`,
    {
      hint: 'Wait for it to finish. If it died, its lease expires by itself and the next apply takes it over; `runner state lease --break` frees it at once.',
    },
  );
}
