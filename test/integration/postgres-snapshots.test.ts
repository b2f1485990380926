import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { replayRunRecords } from '../../src/state/backends/postgres/read-records.js';
import { replayPostgresRun } from '../../src/state/backends/postgres/replay-run.js';
import { SCHEMA_VERSION } from '../../src/state/backends/postgres/schema.js';
import type { JobState } from '../../src/state/job-state.js';
import type { OpenRunInput, RunState } from '../../src/state/state-store.js';
import { pgAvailable, withPgClient } from '../pg-cluster.js';
import { usePgWorkFolder } from './pg-work-folder.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const RUN = { pipeline: 'p', runId: 'r1' };

/** Jobs as plain data (a snapshot's jobs read their whole state from it when serialized). */
const plain = (jobs: ReadonlyMap<string, JobState>) => JSON.parse(JSON.stringify([...jobs])) as unknown;

/**
 * PostgreSQL snapshots (#17.7): a run's replayed state stored beside its records, so that a replay
 * reads the snapshot and only the records after it. A snapshot that does not match its records is
 * ignored and the records are replayed whole; a process that lost its lease stores none.
 */
describe.runIf(pgAvailable())('PostgreSQL state snapshots', () => {
  const work = usePgWorkFolder('runner-pg-snap-', { leaseTtlMs: 10_000, each: 'file' });
  const { cluster } = work;
  const tmp = process.env.TMPDIR;
  beforeAll(() => {
    // The temporary copies of snapshots go here, where the test can see that none is left.
    mkdirSync(join(work.dir, 'tmp'));
    process.env.TMPDIR = join(work.dir, 'tmp');
  });
  afterAll(() => {
    if (tmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmp;
  });
  afterEach(() => {
    expect(readdirSync(join(work.dir, 'tmp'))).toEqual([]);
  });

  /** The run's address; a lease long enough for a loaded machine, short where it must expire. */
  const address = (leaseTtlMs = 10_000): OpenRunInput => ({ ...work.address(), ...RUN, leaseTtlMs });

  /** Appends `jobs` jobs' intent and created records (`from` on), each job then open. */
  async function appendJobs(state: RunState, jobs: number, from = 0): Promise<void> {
    for (let i = from; i < from + jobs; i++) {
      const base = { id: `j${i}`, attempt: 1 };
      await state.journal.append({
        type: 'intent',
        ...base,
        payloadHash: 'h',
        idempotencyKey: `k${i}`,
        // Large enough that the snapshot fills more than one part of a megabyte.
        payload: { kind: 'image', model: 'm', prompt: `${'a watercolor fox '.repeat(120)}${i}`, params: {} },
      } as never);
      await state.journal.append({ type: 'created', ...base, jobId: `job-${i}` } as never);
    }
  }

  /** A run of `jobs` open jobs and a snapshot of all of it, stored by an apply's end. */
  async function runWithSnapshot(url: string, jobs: number) {
    const store = createPostgresStore(url);
    const first = await store.openRun(address());
    await first.journal.append({ type: 'run', pipeline: 'p', runId: 'r1', jobs } as never);
    await appendJobs(first, jobs);
    await first.close();
    // The next apply replays the records whole and stores the snapshot at its end.
    const second = await store.openRun(address());
    expect(second.warnings).toEqual([]);
    expect(await second.snapshots.finish(second.jobs)).toEqual([]);
    await second.close();
    return store;
  }

  it('replays from the snapshot plus the records after it: the state the records alone give', async () => {
    const url = await cluster().createDatabase();
    const store = await runWithSnapshot(url, 500);
    const { parts, records } = await withPgClient(url, async (client) => {
      const { rows } = await client.query<{ parts: number; records: string }>(
        'SELECT parts, records::text AS records FROM runner_snapshots',
      );
      return { parts: rows[0]?.parts ?? 0, records: Number(rows[0]?.records) };
    });
    expect(parts).toBeGreaterThan(1);
    // The header, the `run` record and two per job.
    expect(records).toBe(2 + 2 * 500);

    // More records after the snapshot: read from the database, on top of it.
    const third = await store.openRun(address());
    expect(third.jobs.size).toBe(500);
    await third.journal.append({ type: 'completed', id: 'j7', attempt: 1, resultUrls: ['u'] } as never);
    await appendJobs(third, 2, 500);
    await third.close();

    const reading = await store.readRun(address());
    expect(reading.replay.warnings).toEqual([]);
    await withPgClient(url, async (client) => {
      const fromSnapshot = await replayPostgresRun(client, RUN, 'test');
      expect(fromSnapshot.snapshot?.records).toBe(records);
      const whole = await replayRunRecords(client, RUN, 'test');
      expect(fromSnapshot.lines).toBe(whole.lines);
      expect(fromSnapshot.lastSeq).toBe(whole.lastSeq);
      expect(plain(fromSnapshot.replay.jobs)).toEqual(plain(whole.replay.jobs));
      expect(plain(reading.replay.jobs)).toEqual(plain(whole.replay.jobs));
      expect(fromSnapshot.replay.runs).toEqual(whole.replay.runs);
      expect(fromSnapshot.replay.header).toEqual(whole.replay.header);
    });
    expect(reading.replay.jobs.get('j7')?.status).toBe('done');
    expect(reading.replay.jobs.get('j501')?.status).toBe('open');

    // Appending goes on after the records a snapshot stood for.
    const fourth = await store.openRun(address());
    await fourth.journal.append({ type: 'completed', id: 'j8', attempt: 1, resultUrls: ['u'] } as never);
    await fourth.close();
    expect((await store.readRun(address())).replay.jobs.get('j8')?.status).toBe('done');
  }, 60_000);

  const mismatches: [string, (client: pg.Client) => Promise<unknown>, RegExp][] = [
    [
      'another format',
      (client) =>
        client.query(
          `UPDATE runner_snapshot_parts SET data = replace(data, '"format":2', '"format":9') WHERE part = 0`,
        ),
      /format 9; this runner reads format 2/,
    ],
    [
      'a sequence number beyond the records',
      (client) =>
        client.query(
          'DELETE FROM runner_records WHERE seq = (SELECT last_seq FROM runner_snapshots) AND run_id = $1',
          [RUN.runId],
        ),
      /records up to number \d+, which the run's records do not hold/,
    ],
    [
      'a damaged part (its checksum)',
      (client) =>
        client.query(
          "UPDATE runner_snapshot_parts SET data = overlay(data placing 'b' from 200000) WHERE part = 0",
        ),
      /does not match its checksum/,
    ],
    [
      'another first record',
      (client) =>
        client.query(
          `UPDATE runner_records SET record = replace(record, '"at":', '"at":1') WHERE seq =
             (SELECT min(seq) FROM runner_records WHERE run_id = $1)`,
          [RUN.runId],
        ),
      /does not start or end with the records it was taken of/,
    ],
    [
      "a record fewer under its last (one removed, or another machine's counted differently)",
      (client) =>
        client.query(
          `DELETE FROM runner_records WHERE seq = (SELECT min(seq) + 5 FROM runner_records WHERE run_id = $1)`,
          [RUN.runId],
        ),
      /stands for \d+ records up to number \d+; the run has \d+ there/,
    ],
    [
      'a missing part',
      (client) => client.query('DELETE FROM runner_snapshot_parts WHERE part = 1'),
      /it has 1 of the 2 parts it was written with/,
    ],
  ];

  it.each(mismatches)(
    'ignores a snapshot of %s, replays the records whole and says so',
    async (_what, damage, reason) => {
      const url = await cluster().createDatabase();
      const store = await runWithSnapshot(url, 500);
      await withPgClient(url, damage);
      const reading = await store.readRun(address());
      expect(reading.replay.warnings, reading.replay.warnings.join('\n')).toHaveLength(1);
      expect(reading.replay.warnings[0]).toMatch(/^Ignored the state snapshot of .*: /);
      expect(reading.replay.warnings[0]).toMatch(reason);
      await withPgClient(url, async (client) => {
        const whole = await replayRunRecords(client, RUN, 'test');
        expect(plain(reading.replay.jobs)).toEqual(plain(whole.replay.jobs));
      });
      // The next apply replays whole too, and stores a good snapshot again at its end.
      const state = await store.openRun(address());
      expect(state.warnings.some((warning) => warning.startsWith('Ignored the state snapshot'))).toBe(true);
      expect(await state.snapshots.finish(state.jobs)).toEqual([]);
      await state.close();
      expect((await store.readRun(address())).replay.warnings).toEqual([]);
    },
    60_000,
  );

  it('a process that lost its lease stores no snapshot', async () => {
    const url = await cluster().createDatabase();
    const store = createPostgresStore(url);
    const first = await store.openRun(address());
    await appendJobs(first, 3);
    await first.close();
    // The old holder's heartbeat never beats, as in a process paused (SIGSTOP) past its lease.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const old = await store.openRun(address(600)).finally(() => vi.useRealTimers());
    await sleep(900);
    const taker = await store.openRun(address(600));
    const warnings = await old.snapshots.finish(old.jobs);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Could not write the state snapshot .*expired or was taken over/);
    expect(await withPgClient(url, (client) => client.query('SELECT 1 FROM runner_snapshots'))).toMatchObject(
      {
        rowCount: 0,
      },
    );
    expect(await taker.snapshots.finish(taker.jobs)).toEqual([]);
    await taker.close();
    await old.close();
    const rows = await withPgClient(url, (client) =>
      client.query<{ holder: string }>('SELECT holder FROM runner_snapshots'),
    );
    expect(rows.rowCount).toBe(1);
  }, 60_000);

  it("a machine sharing the run stores no snapshot that would hide the other machine's records", async () => {
    const url = await cluster().createDatabase();
    const store = createPostgresStore(url);
    const earlier = await store.openRun(address());
    await appendJobs(earlier, 3);
    await earlier.close();
    // Two applies on one run at once (#17.4): each holds what it replayed and its own records only.
    const one = await store.openRun(address());
    const two = await store.openRun(address());
    await appendJobs(two, 3, 3);
    await appendJobs(one, 1, 6);
    expect(await one.snapshots.finish(one.jobs)).toEqual([]);
    expect(await withPgClient(url, (client) => client.query('SELECT 1 FROM runner_snapshots'))).toMatchObject(
      {
        rowCount: 0,
      },
    );
    await one.close();
    await two.close();
    // Every machine's jobs are read back, whole.
    const reading = await store.readRun(address());
    expect([...reading.replay.jobs.keys()].sort()).toEqual(['j0', 'j1', 'j2', 'j3', 'j4', 'j5', 'j6']);
    // Alone on the run, the next apply holds all of it and stores its snapshot.
    const alone = await store.openRun(address());
    expect(await alone.snapshots.finish(alone.jobs)).toEqual([]);
    await alone.close();
    expect(await withPgClient(url, (client) => client.query('SELECT 1 FROM runner_snapshots'))).toMatchObject(
      {
        rowCount: 1,
      },
    );
    expect((await store.readRun(address())).replay.jobs.size).toBe(7);
  }, 60_000);

  it('reads a database of the schema before snapshots (step 3) as it is, and the next apply upgrades it', async () => {
    const url = await cluster().createDatabase();
    const store = await runWithSnapshot(url, 3);
    // As the previous runner left it: no snapshot tables, the schema version before them.
    await withPgClient(url, (client) =>
      client.query(
        `DROP TABLE runner_snapshot_parts; DROP TABLE runner_snapshots;
         DROP TABLE runner_model_prices; ALTER TABLE runner_runs DROP COLUMN moved_to, DROP COLUMN moved_at;
         ALTER TABLE runner_claims DROP COLUMN slot_until, DROP COLUMN account;
         DROP TABLE runner_account_pauses; ALTER TABLE runner_records DROP COLUMN set_aside_at;
         DELETE FROM runner_schema_migrations WHERE version >= 3`,
      ),
    );
    const reading = await store.readRun(address());
    expect(reading.replay.warnings).toEqual([]);
    expect(reading.replay.jobs.size).toBe(3);
    const state = await store.openRun(address());
    expect(await state.snapshots.finish(state.jobs)).toEqual([]);
    await state.close();
    const version = await withPgClient(url, (client) =>
      client.query<{ v: number }>('SELECT max(version) AS v FROM runner_schema_migrations'),
    );
    expect(version.rows[0]?.v).toBe(SCHEMA_VERSION);
    expect((await store.readRun(address())).replay.jobs.size).toBe(3);
  }, 60_000);
});
