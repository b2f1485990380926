import { describe, expect, it, vi } from 'vitest';
import type pg from 'pg';
import { acquireLease, type PostgresLease } from '../../src/state/backends/postgres/lease.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { exportRunRecords } from '../../src/state/backends/postgres/run-records.js';
import { pgAvailable, withPgClient } from '../pg-cluster.js';
import { usePgWorkFolder } from './pg-work-folder.js';

/**
 * The times the PostgreSQL backend's messages name, as a person reads them (UTC words, not ISO). The
 * database's clock is not the test's: each test freezes the row's times it reads, far from today.
 */
describe.runIf(pgAvailable())('PostgreSQL lease and move times in UTC words', () => {
  const work = usePgWorkFolder('runner-pg-lease-times-', { leaseTtlMs: 600, each: 'file' });
  const run = { pipeline: 'p', runId: 'r1' };

  /** A lease whose heartbeat never beats (its timer faked), its end then set to `expiresAt`. */
  async function leaseEndingAt(client: pg.Client, expiresAt: string): Promise<PostgresLease> {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const lease = await acquireLease(client, run, { ttlMs: 600, where: 'test' }).finally(() =>
      vi.useRealTimers(),
    );
    await client.query('UPDATE runner_leases SET expires_at = $1 WHERE token = $2::bigint', [
      expiresAt,
      lease.token,
    ]);
    return lease;
  }

  /** A database with the runner's tables (created by a first open). */
  async function freshDatabase(): Promise<string> {
    const url = await work.cluster().createDatabase();
    await (await createPostgresStore(url).openRun(work.address())).close();
    return url;
  }

  it('a live lease refuses another runner and a prune, saying until when, to the second', async () => {
    const url = await freshDatabase();
    await withPgClient(url, async (holder) => {
      await leaseEndingAt(holder, '2099-11-27T16:38:39.123Z');
      await withPgClient(url, async (other) => {
        await expect(acquireLease(other, run, { ttlMs: 600, where: 'test' })).rejects.toMatchObject({
          code: 'STATE_LOCKED',
          message: expect.stringContaining(
            'in test, until 27 Nov 2099, 16:38:39 UTC unless it renews it.',
          ) as unknown,
        });
      });
      const kept = await createPostgresStore(url).deleteRun(work.address());
      expect(kept).toMatchObject({ kind: 'kept', live: true });
      expect(kept.kind === 'kept' && kept.reason).toMatch(
        /, until 27 Nov 2099, 16:38:39 UTC unless renewed\)$/,
      );
    });
  });

  it('a takeover says when the dead holder stopped renewing its lease, to the second', async () => {
    const url = await freshDatabase();
    await withPgClient(url, async (dead) => {
      await leaseEndingAt(dead, '2001-02-03T04:05:06.789Z');
    });
    await withPgClient(url, async (client) => {
      const lease = await acquireLease(client, run, { ttlMs: 600, where: 'test' });
      expect(lease.warning).toContain('(it stopped renewing it at 3 Feb 2001, 04:05:06 UTC)');
      await lease.release();
    });
  });

  it('a run pulled out of the database says when, in UTC words', async () => {
    const url = await freshDatabase();
    await withPgClient(url, (client) =>
      client.query(
        "UPDATE runner_runs SET moved_to = '/work/state/p/r1', moved_at = '2026-11-27T07:00:17.393Z' WHERE pipeline = 'p' AND run_id = 'r1'",
      ),
    );
    await expect(
      exportRunRecords(url, run, { movedTo: '/elsewhere', write: () => Promise.resolve() }),
    ).rejects.toThrow(
      'was already pulled into /work/state/p/r1 at 27 Nov 2026, 07:00 UTC: nothing was written.',
    );
    await expect(createPostgresStore(url).openRun(work.address())).rejects.toThrow(
      / to \/work\/state\/p\/r1 at 27 Nov 2026, 07:00 UTC: /,
    );
  });
});
