import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { connectStateDb } from '../../src/state/backends/postgres/connect-db.js';
import { acquireLease, type PostgresLease } from '../../src/state/backends/postgres/lease.js';
import { openPostgresJournal } from '../../src/state/backends/postgres/postgres-journal.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import { migrateSchema } from '../../src/state/backends/postgres/schema.js';
import { parseStateUrl } from '../../src/state/state-url.js';
import type { RunState } from '../../src/state/state-store.js';
import { pgAvailable, withPgClient } from '../pg-cluster.js';
import { usePgWorkFolder } from './pg-work-folder.js';

/**
 * A lease lifetime the test's own heartbeat (every third of it) keeps on a loaded machine, and the
 * time a write is held: longer, so a renewal that waits for the write lets the lease lapse, and
 * shorter than the statement timeout an apply's connections get (2 x the lease, at least 5 s).
 */
const TTL_MS = 2_000;
const HELD_MS = 3_500;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** `stored`, or the error's text: what an append held on the database side came to. */
const outcomeOf = (append: Promise<unknown>): Promise<string> =>
  append.then(
    () => 'stored',
    (error: unknown) => String(error),
  );

/**
 * The lease's heartbeat never waits for the journal's or a snapshot's writes (H4, session 8): a write
 * held up on the database side (a lock it waits for, a slow disk) kept the renewal queued behind it on
 * the one shared connection, and the lease of a live process lapsed, so another machine would take its
 * jobs over. The renewal has a connection of its own, and a fenced write's hold on the lease row no
 * longer blocks it. A process that really lost its lease still writes nothing (see postgres-state).
 */
describe.runIf(pgAvailable())('the PostgreSQL lease heartbeat beside slow writes', () => {
  const work = usePgWorkFolder('runner-pg-heartbeat-', { leaseTtlMs: TTL_MS });

  async function open(): Promise<{ url: string; state: RunState; token: string }> {
    const url = await work.cluster().createDatabase();
    const state = await createPostgresStore(url).openRun(work.address());
    return { url, state, token: (state.lock as PostgresLease).token };
  }

  /** Whether the lease is live on the database's clock: what another machine's takeover checks. */
  const liveInDatabase = (url: string, token: string) =>
    withPgClient(url, async (client) => {
      const { rows } = await client.query<{ live: boolean }>(
        `SELECT NOT released AND expires_at > clock_timestamp() AS live FROM runner_leases WHERE token = $1`,
        [token],
      );
      return rows[0]?.live;
    });

  /** Appends of records naming "slow" sleep `HELD_MS` in the database, their lease row locked. */
  const slowTrigger = (url: string) =>
    withPgClient(url, (client) =>
      client.query(
        `CREATE FUNCTION slow_record() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN
           IF NEW.record LIKE '%"slow"%' THEN PERFORM pg_sleep(${HELD_MS / 1000}); END IF;
           RETURN NEW;
         END $$;
         CREATE TRIGGER slow_record BEFORE INSERT ON runner_records FOR EACH ROW EXECUTE FUNCTION slow_record();`,
      ),
    );

  async function expectStillHeld(state: RunState): Promise<void> {
    expect(() => state.lock.assertHeld?.()).not.toThrow();
    await state.lock.verify();
    await state.journal.append({ type: 'intent', id: 'after', attempt: 1, payloadHash: 'h' });
  }

  it('an append waiting for a lock on the records table longer than the lease: the lease stays live', async () => {
    const { url, state, token } = await open();
    try {
      await withPgClient(url, async (locker) => {
        await locker.query('BEGIN');
        // Reads go on; every INSERT into the records waits for this transaction's end.
        await locker.query('LOCK TABLE runner_records IN EXCLUSIVE MODE');
        const append = state.journal.append({ type: 'intent', id: 'held', attempt: 1, payloadHash: 'h' });
        const settled = outcomeOf(append);
        await sleep(HELD_MS - TTL_MS / 4);
        expect(await liveInDatabase(url, token)).toBe(true);
        await locker.query('COMMIT');
        expect(await settled).toBe('stored');
      });
      await expectStillHeld(state);
    } finally {
      await state.close();
    }
  }, 30_000);

  it('a fenced append held on the database side (a slow trigger) longer than the lease: the lease stays live', async () => {
    const { url, state, token } = await open();
    try {
      await slowTrigger(url);
      // The append has locked the lease row for its fence when the trigger sleeps.
      const append = state.journal.append({ type: 'intent', id: 'slow', attempt: 1, payloadHash: 'h' });
      const settled = outcomeOf(append);
      await sleep(HELD_MS - TTL_MS / 2);
      expect(await liveInDatabase(url, token)).toBe(true);
      expect(await settled).toBe('stored');
      await expectStillHeld(state);
    } finally {
      await state.close();
    }
  }, 30_000);

  // The renewal no longer waits for a fenced write; the fence still holds against the others: a break
  // or a takeover waits for the write under way to commit, and refuses every later one.
  it('a `state lease --break` and a takeover wait for a fenced append under way, then refuse the next', async () => {
    const url = await work.cluster().createDatabase();
    const run = { pipeline: 'p', runId: 'r1' };
    const where = 'the test database';
    const db = await connectStateDb(parseStateUrl(url));
    const taker = await connectStateDb(parseStateUrl(url));
    try {
      await migrateSchema(db.client);
      await slowTrigger(url);
      const journalOf = async (lease: PostgresLease) =>
        openPostgresJournal(db.client, run, lease, {
          clock: systemClock,
          where,
          lines: 0,
          failure: (error) => (error instanceof Error ? error : new Error(String(error))),
        });
      const order: string[] = [];
      const first = await acquireLease(db.client, run, { ttlMs: 600_000, where });
      const journal = await journalOf(first);
      const appended = journal.append({ type: 'intent', id: 'slow', attempt: 1, payloadHash: 'h' });
      void appended.then(() => order.push('stored'));
      // The append holds the lease row once its fence passed (the trigger sleeps after it).
      await waitForSleep(url);
      await breakLease(url, run).then((broken) => order.push(`broken ${broken}`));
      await appended;
      expect(order).toEqual(['stored', 'broken true']);
      await expect(
        journal.append({ type: 'intent', id: 'after-break', attempt: 1, payloadHash: 'h' }),
      ).rejects.toThrow(/expired or was taken over/);
      await first.release();

      // A holder that stopped renewing (its heartbeat's connection is gone) mid-append: its lease
      // expires during the append, and the next taker ends it only once the append committed.
      const gone = await connectStateDb(parseStateUrl(url));
      await gone.end();
      order.length = 0;
      const second = await acquireLease(db.client, run, { ttlMs: 1_000, where, heartbeat: gone.client });
      const secondJournal = await openPostgresJournal(db.client, run, second, {
        clock: systemClock,
        where,
        lines: 2,
        failure: (error) => (error instanceof Error ? error : new Error(String(error))),
      });
      const late = secondJournal.append({ type: 'intent', id: 'slow', attempt: 2, payloadHash: 'h' });
      void late.then(() => order.push('stored'));
      await waitForSleep(url);
      await sleep(1_200);
      const third = await acquireLease(taker.client, run, { ttlMs: 600_000, where });
      order.push('taken over');
      await late;
      expect(order).toEqual(['stored', 'taken over']);
      expect(third.warning).toMatch(/Took over the expired lease/);
      await expect(
        secondJournal.append({ type: 'intent', id: 'after-takeover', attempt: 1, payloadHash: 'h' }),
      ).rejects.toThrow(/expired or was taken over/);
      await third.release();
    } finally {
      await taker.end();
      await db.end();
    }
  }, 30_000);
});

/** Waits until a statement of the database sleeps in the slow trigger. */
async function waitForSleep(url: string): Promise<void> {
  await withPgClient(url, async (client) => {
    for (;;) {
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep'`,
      );
      if ((rows[0]?.n ?? 0) > 0) return;
      await sleep(10);
    }
  });
}
