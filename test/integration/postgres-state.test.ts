import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { acquireLease } from '../../src/state/backends/postgres/lease.js';
import { replayRunRecords } from '../../src/state/backends/postgres/read-records.js';
import { SCHEMA_VERSION } from '../../src/state/backends/postgres/schema.js';
import { parseStateUrl, redactUrls } from '../../src/state/state-url.js';
import type { OpenRunInput } from '../../src/state/state-store.js';
import { pgAvailable, withPgClient } from '../pg-cluster.js';
import { usePgWorkFolder } from './pg-work-folder.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('state URL', () => {
  it('refuses a password in the URL and never shows it', () => {
    let message = '';
    try {
      parseStateUrl('postgres://me:hunter2@db.example:5432/runs');
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/carries a password/);
    expect(message).not.toContain('hunter2');
    expect(redactUrls('at postgres://u:s3cret@h/db now')).toBe('at postgres://u:***@h/db now');
  });

  it('refuses what is not a postgres:// URL', () => {
    expect(() => parseStateUrl('mysql://h/db')).toThrow(/postgres:\/\//);
    expect(() => parseStateUrl('postgres://h/')).toThrow(/database/);
  });
});

describe.runIf(pgAvailable())('PostgreSQL state backend', () => {
  const work = usePgWorkFolder('runner-pg-state-', { leaseTtlMs: 600, each: 'file' });
  const { cluster } = work;

  const freshUrl = () => cluster().createDatabase();
  const address = (runId = 'r1'): OpenRunInput => ({
    ...work.address(),
    runId,
    uploadCachePath: join(work.dir, `uploads-${runId}.json`),
  });

  it('creates its tables on first use under the current schema version, and replays what was appended, in order', async () => {
    const url = await freshUrl();
    const store = createPostgresStore(url);
    const state = await store.openRun(address());
    expect(state.jobs.size).toBe(0);
    await state.journal.append({ type: 'run', pipeline: 'p', runId: 'r1', jobs: 1 } as never);
    await state.journal.append({
      type: 'intent',
      id: 'a',
      attempt: 1,
      payloadHash: 'h',
      idempotencyKey: 'k',
    } as never);
    await state.journal.append({ type: 'created', id: 'a', attempt: 1, jobId: 'job-1' } as never);
    await state.close();
    const reading = await store.readRun(address());
    expect(reading.exists).toBe(true);
    expect(reading.replay.jobs.get('a')?.status).toBe('open');
    expect(reading.replay.header).toMatchObject({ pipeline: 'p', runId: 'r1' });
    const { rows } = await withPgClient(url, (check) =>
      check.query('SELECT max(version) AS v FROM runner_schema_migrations'),
    );
    expect(rows[0].v).toBe(SCHEMA_VERSION);
    // Read in pages (of 2, of 5, whole): the same records in the same order. Past 9 records, an order
    // by the sequence number's text ("10" before "9") would lose and reorder records.
    const more = await store.openRun(address());
    for (let i = 0; i < 12; i++) {
      await more.journal.append({
        type: 'intent',
        id: `j${i}`,
        attempt: 1,
        payloadHash: 'h',
        idempotencyKey: `k${i}`,
      } as never);
      await more.journal.append({ type: 'created', id: `j${i}`, attempt: 1, jobId: `job-j${i}` } as never);
    }
    await more.close();
    const whole = await store.readRun(address());
    expect(whole.replay.jobs.size).toBe(13);
    expect([...whole.replay.jobs.values()].every((job) => job.status === 'open')).toBe(true);
    await withPgClient(url, async (client) => {
      for (const page of [2, 5]) {
        const paged = await replayRunRecords(client, { pipeline: 'p', runId: 'r1' }, 'test', { page });
        expect(paged.lines).toBe(28);
        expect(paged.replay.jobs).toEqual(whole.replay.jobs);
      }
    });
    const runs = await store.listRuns({ manifestFile: address().manifestFile, pipeline: 'p' });
    expect(runs.runs.map((run) => run.runId)).toEqual(['r1']);
    expect(runs.runs[0]?.counts.open).toBe(13);
  });

  it('refuses a database of a newer schema with a clear message', async () => {
    const url = await freshUrl();
    const store = createPostgresStore(url);
    await (await store.openRun(address())).close();
    await withPgClient(url, (client) =>
      client.query('INSERT INTO runner_schema_migrations (version) VALUES ($1)', [SCHEMA_VERSION + 1]),
    );
    await expect(store.openRun(address())).rejects.toMatchObject({
      code: 'STATE_VERSION',
      message: expect.stringContaining(
        `schema version ${SCHEMA_VERSION + 1}; this runner knows versions up to ${SCHEMA_VERSION}`,
      ),
    });
    await expect(store.readRun(address())).rejects.toMatchObject({ code: 'STATE_VERSION' });
  });

  it('lets a second apply share the run (#17.4), but refuses an exclusive lease (push, pull) while either holds it', async () => {
    const url = await freshUrl();
    const store = createPostgresStore(url);
    const first = await store.openRun(address());
    const second = await store.openRun(address());
    expect(second.lock.warning).toBeUndefined();
    await withPgClient(url, async (client) => {
      await expect(
        acquireLease(client, { pipeline: 'p', runId: 'r1' }, { ttlMs: 600, where: 'test' }),
      ).rejects.toMatchObject({
        code: 'STATE_LOCKED',
        message: expect.stringMatching(/holds the lease on run "r1"/),
      });
      await first.close();
      await second.close();
      const alone = await acquireLease(client, { pipeline: 'p', runId: 'r1' }, { ttlMs: 600, where: 'test' });
      await expect(store.openRun(address())).rejects.toMatchObject({ code: 'STATE_LOCKED' });
      await alone.release();
    });
  });

  it('takes over an expired lease; the old holder fails verify and its late writes are refused by the database', async () => {
    const store = createPostgresStore(await freshUrl());
    // The old holder's heartbeat never beats, as in a process paused (SIGSTOP) past its lease.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const old = await store.openRun(address()).finally(() => vi.useRealTimers());
    await old.journal.append({
      type: 'intent',
      id: 'a',
      attempt: 1,
      payloadHash: 'h',
      idempotencyKey: 'k',
    } as never);
    await sleep(900);
    const taker = await store.openRun(address());
    expect(taker.lock.warning).toMatch(/Took over the expired lease/);
    // Its open attempt is followed from the records, not forgotten.
    expect(taker.jobs.get('a')?.status).toBe('creating');
    await expect(old.lock.verify()).rejects.toMatchObject({ code: 'STATE_LOCKED' });
    await expect(
      old.journal.append({ type: 'created', id: 'a', attempt: 1, jobId: 'late' } as never),
    ).rejects.toMatchObject({ code: 'STATE_LOCKED', message: expect.stringMatching(/refused a record/) });
    await taker.journal.append({ type: 'created', id: 'a', attempt: 1, jobId: 'job-1' } as never);
    await taker.lock.verify();
    await taker.close();
    await old.close();
    const reading = await store.readRun(address());
    expect(reading.replay.jobs.get('a')?.attempts[0]).toMatchObject({ jobId: 'job-1' });
  });
});
