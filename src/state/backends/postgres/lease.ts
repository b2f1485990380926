import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ClientBase } from 'pg';
import { RunnerError } from '../../../errors.js';
import { machineName } from '../../machine-name.js';
import type { RunLease } from '../../state-store.js';
import { readableUtcTime } from '../../../readable-time.js';

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
  /** Who holds it, as records and `lease inspect` show: the machine name and a random id. */
  readonly holder: string;
  /** The machine name (`RUNNER_MACHINE`, else host and pid), as `status` shows who did what. */
  readonly machine: string;
}

interface LeaseRow {
  holder: string;
  token: string;
  expires_at: Date;
  released: boolean;
  expired: boolean;
  shared: boolean;
  plan_identity: string | null;
}

/** How a lease is taken: alone (push, pull), or beside other applies of the same run (issue 17.4). */
export interface LeaseOptions {
  ttlMs: number;
  where: string;
  /**
   * Cooperate: live shared leases of other applies are joined instead of refused (their plan is
   * compared later, see run-coordination.ts); a live exclusive one is still refused. @default false
   */
  shared?: boolean;
  /** The machine name records and `status` show. @default `machineName({})`: host and pid */
  machine?: string;
  /**
   * The connection renewals (and the release) go on. An apply gives one of its own: on the journal's
   * connection a renewal waits for every statement queued before it, so a slow append or snapshot let
   * the lease of a live process lapse. @default `client`
   */
  heartbeat?: ClientBase;
}

/**
 * Takes a lease on the run in one transaction (the run's row locked, so two takers are serialized).
 * An exclusive lease is refused while any other is live; a shared one only while an exclusive one is
 * live. Leases that expired unreleased are ended (their holders died or were cut off: their later
 * writes are refused, and their open attempts are followed from the records, never created again),
 * with a warning. The new lease's token is one above every earlier token of the run. Then
 * heartbeats keep it, on `options.heartbeat` (else `client`), every `ttlMs / 3`.
 */
export async function acquireLease(
  client: ClientBase,
  run: RunKey,
  options: LeaseOptions,
): Promise<PostgresLease> {
  const machine = options.machine ?? machineName({});
  const holder = `${machine} ${randomBytes(4).toString('hex')}`;
  const shared = options.shared ?? false;
  const started = performance.now();
  await client.query('BEGIN');
  try {
    await client.query('INSERT INTO runner_runs (pipeline, run_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      run.pipeline,
      run.runId,
    ]);
    // NO KEY UPDATE, not UPDATE: it serializes takers without blocking the foreign-key checks of the
    // records other processes append meanwhile (which would deadlock against their lease rows).
    await client.query('SELECT 1 FROM runner_runs WHERE pipeline = $1 AND run_id = $2 FOR NO KEY UPDATE', [
      run.pipeline,
      run.runId,
    ]);
    const rows = (
      await client.query<LeaseRow>(
        `SELECT holder, token::text AS token, expires_at, released, shared, plan_identity,
                expires_at <= clock_timestamp() AS expired
           FROM runner_leases WHERE pipeline = $1 AND run_id = $2 AND NOT released`,
        [run.pipeline, run.runId],
      )
    ).rows;
    const live = rows.filter((row) => !row.expired);
    const blocking = live.find((row) => !shared || !row.shared);
    if (blocking !== undefined) throw lockedError(run, blocking, options.where);
    const dead = rows.filter((row) => row.expired);
    if (dead.length > 0) await endExpiredLeases(client, run);
    const { rows: inserted } = await client.query<{ token: string }>(
      `INSERT INTO runner_leases (pipeline, run_id, holder, token, acquired_at, expires_at, machine, shared)
       SELECT $1, $2, $3, coalesce(max(token), 0) + 1, clock_timestamp(),
              clock_timestamp() + $4 * interval '1 millisecond', $5, $6
         FROM runner_leases WHERE pipeline = $1 AND run_id = $2
       RETURNING token::text AS token`,
      [run.pipeline, run.runId, holder, options.ttlMs, machine, shared],
    );
    await client.query('COMMIT');
    const token = inserted[0]?.token ?? '';
    const warning =
      dead.length === 0
        ? undefined
        : `Took over the expired lease of ${dead.map((row) => row.holder).join(', ')} on run "${run.runId}" in ${options.where} (it stopped renewing it at ${dead[0] === undefined ? '?' : readableUtcTime(dead[0].expires_at.getTime(), { seconds: true })}): its open jobs are followed, not created again.`;
    return startHeartbeat(options.heartbeat ?? client, run, {
      ...options,
      holder,
      machine,
      token,
      warning,
      renewedAt: started,
    });
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
    machine: string;
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
    machine: lease.machine,
    warning: lease.warning,
    assertHeld,
    async verify(options) {
      assertHeld();
      // Before a create, whose intent is written next (#31 session 6 point 1): that INSERT is fenced
      // in the same statement (this token, not released, not expired on the database's clock, the
      // lease row FENCE_LOCK), so a takeover or `state lease --break` before it commits has it refused
      // and nothing is sent; one after it commits is no different with a renewal here, which comes
      // before the INSERT. And after the INSERT, `assertHeld` holds the create back unless a renewal
      // ASKED less than the lease's lifetime ago got through. So a renewal asked within the last
      // third of the lifetime (as recent as a heartbeat's) is enough here: the round trip, a commit
      // with its fsync, is skipped. A check with nothing fenced after it (a re-send after a 429's
      // wait, which writes no intent) always makes the round trip.
      if (options?.fencedWriteFollows === true && performance.now() - renewedAt < lease.ttlMs / 3) return;
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

/**
 * Ends the run's leases that expired unreleased, returning their holders. Each is locked `FOR UPDATE`
 * first: that waits for the writes fenced by it that are under way (they hold it `FOR KEY SHARE`,
 * {@link FENCE_LOCK}) to commit, and refuses every later one. The heartbeat's renewal (an UPDATE of
 * no key) does not conflict with those fences, so a slow write never holds a renewal back; it does
 * conflict with this lock, and a lease renewed meanwhile is found live again and kept.
 */
export async function endExpiredLeases(client: ClientBase, run: RunKey): Promise<string[]> {
  const { rows } = await client.query<{ holder: string }>(
    `WITH expired AS (
       SELECT token FROM runner_leases
        WHERE pipeline = $1 AND run_id = $2 AND NOT released AND expires_at <= clock_timestamp()
        FOR UPDATE)
     UPDATE runner_leases l SET released = true FROM expired
      WHERE l.pipeline = $1 AND l.run_id = $2 AND l.token = expired.token
     RETURNING l.holder`,
    [run.pipeline, run.runId],
  );
  return rows.map((row) => row.holder);
}

/**
 * How a write fenced by its lease locks the lease row until it commits: `FOR KEY SHARE`, which a
 * takeover or a break (`FOR UPDATE`, {@link endExpiredLeases}) waits for, and which waits for them,
 * but which the heartbeat's renewal never waits for.
 */
export const FENCE_LOCK = 'FOR KEY SHARE';

function lockedError(run: RunKey, row: LeaseRow, where: string): RunnerError {
  return new RunnerError(
    'STATE_LOCKED',
    `Another runner (${row.holder}) holds the lease on run "${run.runId}" of pipeline "${run.pipeline}" in ${where}, until ${readableUtcTime(row.expires_at.getTime(), { seconds: true })} unless it renews it.`,
    {
      hint: 'Wait for it to finish. If it died, its lease expires by itself and the next apply takes it over; `runner state lease --break` frees it at once.',
    },
  );
}
