import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { planIdentity } from '../../src/plan/plan-identity.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { MIGRATIONS, migrateSchema } from '../../src/state/backends/postgres/schema.js';
import { pgAvailable } from '../pg-cluster.js';
import { claimed, coordinationOf, usePgWorkFolder } from './pg-work-folder.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The run's job queue and open-job slots in PostgreSQL (issue 17.4), driven directly: what each
 * process may claim, what waits, what passes on when a process dies, and a plan that differs.
 */
describe.runIf(pgAvailable())('several processes on one run: claims and slots', () => {
  const work = usePgWorkFolder('runner-pg-claims-', { leaseTtlMs: 600, each: 'file' });
  const { cluster, address } = work;

  it('shares the slots across processes: never more claimed at once than the limit, the rest wait', async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const a = await store.openRun(address('a'));
    const b = await store.openRun(address('b'));
    const ca = coordinationOf(a);
    const cb = coordinationOf(b);
    try {
      await ca.join('plan-1');
      await cb.join('plan-1');
      await ca.enqueue(['j1', 'j2', 'j3', 'j4']);
      await cb.enqueue(['j1', 'j2', 'j3', 'j4']);
      expect(await claimed(ca, 2)).toBe('j1');
      expect(await claimed(cb, 2)).toBe('j2');
      // Both slots are held: the third claim, from either process, waits.
      expect(await claimed(ca, 2)).toBe('wait');
      expect(await claimed(cb, 2)).toBe('wait');
      await cb.finish('j2', true);
      expect(await claimed(ca, 2)).toBe('j3');
      await ca.finish('j1', true);
      // A job given back unfinished (creating stopped there) goes to the next taker.
      await ca.finish('j3', false);
      expect(await claimed(cb, 2)).toBe('j3');
      expect(await claimed(cb, 2)).toBe('j4');
      await cb.finish('j3', true);
      await cb.finish('j4', true);
      expect(await claimed(ca, 2)).toBe('none');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps the slot of a create whose answer was lost past its claim, until the time given (#31.6)', async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const a = await store.openRun(address('a'));
    const b = await store.openRun(address('b'));
    const ca = coordinationOf(a);
    const cb = coordinationOf(b);
    try {
      await ca.join('plan-1');
      await cb.join('plan-1');
      await ca.enqueue(['j1', 'j2', 'j3', 'j4']);
      expect(await claimed(ca, 2)).toBe('j1');
      expect(await claimed(cb, 2)).toBe('j2');
      // j1's create lost its answer: its job may be open on the service for a while.
      await ca.keepSlot('j1', 60_000);
      await ca.releaseSlot('j1');
      await ca.finish('j1', true);
      // Before: the slot went with the claim, and b created a third job on an account of two slots.
      expect(await claimed(cb, 2)).toBe('wait');
      await cb.finish('j2', true);
      expect(await claimed(cb, 2)).toBe('j3');
      // A slot kept for a moment only counts until then.
      await cb.keepSlot('j3', 1);
      await cb.finish('j3', true);
      await sleep(20);
      expect(await claimed(ca, 2)).toBe('j4');
      await ca.finish('j4', true);
      expect(await claimed(ca, 2)).toBe('none');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a process that joins with another cap, naming the flag (#31.8)', async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const a = await store.openRun(address('a'));
    const b = await store.openRun(address('b'));
    const settings = { maxCredits: 50, replace: [], retryFailed: false, resendUncertain: false };
    const jobs = { pipeline: 'p', jobs: [{ id: 'j1', payloadHash: 'h1' }] as never };
    try {
      await coordinationOf(a).join(planIdentity(jobs, settings));
      // Before: a leg without the cap joined the capped run and spent without counting.
      await expect(
        coordinationOf(b).join(planIdentity(jobs, { ...settings, maxCredits: undefined })),
      ).rejects.toMatchObject({
        code: 'STATE_MISMATCH',
        message: expect.stringMatching(
          /a is applying it with other options: --max-credits \/ the manifest budget \(this apply: none, the other: 50\)/,
        ),
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses a process that joins with another plan', async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const a = await store.openRun(address('a'));
    const b = await store.openRun(address('b'));
    try {
      await coordinationOf(a).join('plan-1');
      await expect(coordinationOf(b).join('plan-2')).rejects.toMatchObject({
        code: 'STATE_MISMATCH',
        message: expect.stringMatching(/a is applying it with a different plan/),
      });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("passes a dead process's claim, with its slot and its records, to the next taker; the dead one's writes are refused", async () => {
    const url = await cluster().createDatabase();
    const store = createPostgresStore(url);
    // The dying process's heartbeat never beats, as in a machine killed or paused past its lease. Both
    // leases are long: with the file's 600 ms, at a load of 9 on 2 cores the dying process's own join,
    // enqueue and claim outlived its lease (2 failures in 3 runs: "no longer holds its lease"). Its
    // lease runs out below, when the test says so: its row's expiry is moved to now, the state the
    // database holds once a holder stopped renewing it.
    const long = { leaseTtlMs: 60_000 };
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const dying = await store.openRun({ ...address('dying'), ...long }).finally(() => vi.useRealTimers());
    const taker = await store.openRun({ ...address('taker'), ...long });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const cd = coordinationOf(dying);
      const ct = coordinationOf(taker);
      await cd.join('plan-1');
      await ct.join('plan-1');
      await cd.enqueue(['j1', 'j2']);
      expect(await claimed(cd, 1)).toBe('j1');
      await dying.journal.append({
        type: 'intent',
        id: 'j1',
        attempt: 1,
        payloadHash: 'h',
        idempotencyKey: 'k',
      } as never);
      await dying.journal.append({ type: 'created', id: 'j1', attempt: 1, jobId: 'job-1' } as never);
      // The only slot is the dying process's: nothing can be claimed while its lease lives.
      expect(await claimed(ct, 1)).toBe('wait');
      const { rowCount } = await db.query(
        `UPDATE runner_leases SET expires_at = clock_timestamp() WHERE pipeline = 'p' AND run_id = 'r1' AND token = $1`,
        [(dying.lock as { token?: string }).token],
      );
      expect(rowCount).toBe(1);
      const claim = await ct.claim(1);
      expect(claim).toMatchObject({ kind: 'claimed', id: 'j1', from: 'dying' });
      expect(claim.tookOver).toEqual([expect.stringMatching(/^dying [0-9a-f]{8}$/)]);
      if (claim.kind !== 'claimed') throw new Error('not claimed');
      // Its open attempt is followed from the records, never created again.
      expect(claim.records.map((record) => (JSON.parse(record) as { type: string }).type)).toEqual([
        'intent',
        'created',
      ]);
      await expect(
        dying.journal.append({ type: 'completed', id: 'j1', attempt: 1, resultUrls: [] } as never),
      ).rejects.toMatchObject({ code: 'STATE_LOCKED' });
      await expect(cd.claim(1)).rejects.toMatchObject({ code: 'STATE_LOCKED' });
      // The slot came with the claim: still one in all.
      expect(await claimed(ct, 1)).toBe('wait');
      await ct.finish('j1', true);
      expect(await claimed(ct, 1)).toBe('j2');
      const reading = await store.readRun(address('taker'), { machines: true });
      expect(reading.replay.machines?.get('j1')).toBe('dying');
    } finally {
      await db.end();
      await taker.close();
      await dying.close();
    }
  });

  it("a process frozen inside a claim's transaction holds the run's lock only as long as a lease lasts", async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const frozen = await store.openRun(address('frozen'));
    await coordinationOf(frozen).join('plan-1');
    await coordinationOf(frozen).enqueue(['j1']);
    // The claim takes the run's row lock, then its client stops answering (SIGSTOP, a stalled machine).
    const query = pg.Client.prototype.query;
    let froze = false;
    const spy = vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (
      this: pg.Client,
      ...args: unknown[]
    ) {
      const text = typeof args[0] === 'string' ? args[0] : '';
      const result = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (!froze && text.includes('FOR NO KEY UPDATE')) {
        froze = true;
        return (result as Promise<unknown>).then(() => new Promise(() => undefined));
      }
      return result;
    });
    try {
      void coordinationOf(frozen).claim(1);
      await vi.waitFor(() => expect(froze).toBe(true));
      spy.mockRestore();
      // The server ends the frozen session after the lease time (600 ms): another process gets in.
      const started = Date.now();
      const other = await store.openRun(address('other'));
      expect(Date.now() - started).toBeLessThan(4_000);
      await coordinationOf(other).join('plan-1');
      expect(await claimed(coordinationOf(other), 1)).toBe('j1');
      await other.close();
    } finally {
      spy.mockRestore();
      await frozen.close().catch(() => undefined);
    }
  });

  it('upgrades a database of schema version 1: its records get their job ids, its run goes on', async () => {
    const url = await cluster().createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        'CREATE TABLE runner_schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      await client.query(MIGRATIONS[0] ?? '');
      await client.query('INSERT INTO runner_schema_migrations (version) VALUES (1)');
      await client.query("INSERT INTO runner_runs (pipeline, run_id) VALUES ('p', 'r1')");
      await client.query(
        `INSERT INTO runner_leases (pipeline, run_id, holder, token, acquired_at, expires_at, released)
         VALUES ('p', 'r1', 'old host pid 1 abcd', 3, now(), now(), true)`,
      );
      const records = [
        { type: 'journal', at: 1, version: 2, pipeline: 'p', runId: 'r1' },
        { type: 'intent', at: 2, id: 'j1', attempt: 1, payloadHash: 'h', idempotencyKey: 'k' },
        { type: 'created', at: 3, id: 'j1', attempt: 1, jobId: 'job-1' },
      ];
      for (const record of [...records.map((one) => JSON.stringify(one)), '{"torn']) {
        await client.query(
          "INSERT INTO runner_records (pipeline, run_id, record, lease_token, holder) VALUES ('p', 'r1', $1, 3, 'old')",
          [record],
        );
      }
      await migrateSchema(client);
      const { rows } = await client.query<{ job_id: string | null }>(
        'SELECT job_id FROM runner_records ORDER BY seq',
      );
      expect(rows.map((row) => row.job_id)).toEqual([null, 'j1', 'j1', null]);
      // A damaged record did not stop the upgrade; the replay refuses it, as it always did.
      await client.query(`DELETE FROM runner_records WHERE record = '{"torn'`);
      const store = createPostgresStore(url);
      const state = await store.openRun(address('new'));
      try {
        // The token goes on from the old lease's.
        expect(Number((state.lock as { token?: string }).token)).toBe(4);
        expect(state.jobs.get('j1')?.status).toBe('open');
      } finally {
        await state.close();
      }
    } finally {
      await client.end();
    }
  });
});
