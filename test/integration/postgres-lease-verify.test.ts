import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { connectStateDb } from '../../src/state/backends/postgres/connect-db.js';
import { acquireLease } from '../../src/state/backends/postgres/lease.js';
import { openPostgresJournal } from '../../src/state/backends/postgres/postgres-journal.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import { migrateSchema } from '../../src/state/backends/postgres/schema.js';
import { parseStateUrl } from '../../src/state/state-url.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';

/**
 * The check of the lease before a create (#31 session 6 point 1): the create's intent, written next,
 * is fenced by the lease in its own INSERT, so a lease renewed moments ago needs no round trip (a
 * committed UPDATE) before it; a `state lease --break` in between still has the intent refused, and
 * nothing is sent. A check with no fenced write after it (`verify()` alone) still asks the database.
 */
describe.runIf(pgAvailable())('verifying a PostgreSQL lease before a create', () => {
  const cluster = usePgCluster();
  const run = { pipeline: 'p', runId: 'r1' };
  const RENEW = /^\s*UPDATE runner_leases SET expires_at = clock_timestamp\(\) \+/;

  it('skips the renewal when one was asked moments ago and the intent follows; the intent is still fenced', async () => {
    const url = await cluster().createDatabase();
    const db = await connectStateDb(parseStateUrl(url));
    let renewals = 0;
    const query = db.client.query.bind(db.client) as (...args: unknown[]) => unknown;
    (db.client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && RENEW.test(args[0])) renewals++;
      return query(...args);
    };
    try {
      await migrateSchema(db.client);
      // A lifetime of 10 minutes: its heartbeat (every third of it) does not run during the test.
      const lease = await acquireLease(db.client, run, { ttlMs: 600_000, where: 'the test database' });
      const journal = await openPostgresJournal(db.client, run, lease, {
        clock: systemClock,
        where: 'the test database',
        lines: 0,
        failure: (error) => (error instanceof Error ? error : new Error(String(error))),
      });
      for (let create = 0; create < 5; create++) await lease.verify({ fencedWriteFollows: true });
      expect(renewals).toBe(0);
      await lease.verify();
      expect(renewals).toBe(1);

      // Broken between the check and the intent: the check passes on its recent renewal, the intent
      // is refused by the database, so the create is never sent.
      expect(await breakLease(url, run)).toBe(true);
      await lease.verify({ fencedWriteFollows: true });
      await expect(
        journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' }),
      ).rejects.toThrow(/refused a record .* expired or was taken over/);
      await expect(lease.verify()).rejects.toThrow(/no longer holds the lease/);
      await lease.release();
    } finally {
      await db.end();
    }
  });
});
