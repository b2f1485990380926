import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import { pullRunState, pushRunState } from '../../src/state/backends/folder/move-run-state.js';
import { openRunState } from '../../src/state/backends/folder/open-run-state.js';
import type { OpenRunInput } from '../../src/state/state-store.js';
import { pgAvailable, withPgClient } from '../pg-cluster.js';
import { coordinationOf, usePgWorkFolder } from './pg-work-folder.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A run moved between a folder and PostgreSQL (#31.11): the source is marked moved and refused from
 * then on, with the command that moves it back; the copy is fenced by its lease like any write; and a
 * claim is given up only by a live lease.
 */
describe.runIf(pgAvailable())('moving a run between a folder and PostgreSQL', () => {
  const work = usePgWorkFolder('runner-pg-move-', { leaseTtlMs: 10_000 });
  const { cluster } = work;
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const folder = () => ({
    manifestFile: join(work.dir, 'm.yaml'),
    pipeline: 'p',
    runId: 'r1',
    stateDir: join(work.dir, 'state'),
  });

  async function folderRun(): Promise<void> {
    const state = await openRunState(folder());
    await state.journal.append({
      type: 'intent',
      id: 'j1',
      attempt: 1,
      payloadHash: 'h',
      idempotencyKey: 'k',
    });
    await state.journal.append({ type: 'created', id: 'j1', attempt: 1, jobId: 'job-1' });
    await state.close();
  }

  async function countRecords(url: string): Promise<number> {
    return withPgClient(url, async (client) => {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM runner_records');
      return rows[0]?.n ?? 0;
    });
  }

  it('push marks the folder moved, pull marks the database moved; each is refused until the run comes back', async () => {
    const url = await cluster().createDatabase();
    await folderRun();
    expect(await pushRunState({ ...folder(), stateUrl: url })).toBe(3);
    // Applying the folder's copy after the database's went on would pay again.
    const refused = await openRunState(folder()).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({
      code: 'STATE_MISMATCH',
      message: expect.stringMatching(
        /^Run "r1" of pipeline "p" moved from .* to postgres:\/\/.* Nothing was created\.$/,
      ),
      hint: expect.stringContaining(
        `runner state pull ${join(work.dir, 'm.yaml')} --run r1 --state-dir ${join(work.dir, 'state')} --state postgres://`,
      ),
    });

    const store = createPostgresStore(url);
    const input: OpenRunInput = { ...folder(), uploadCachePath: join(work.dir, 'uploads.json') };
    const db = await store.openRun(input);
    await db.journal.append({ type: 'status', id: 'j1', attempt: 1, status: 'running' });
    await db.close();

    // Back into the folder (the copy the push left is set aside), which goes on from the database's.
    expect(await pullRunState({ ...folder(), stateUrl: url })).toBe(4);
    expect(
      (await readdir(join(work.dir, 'state', 'p', 'r1'))).some((name) => name.startsWith('journal.pushed-')),
    ).toBe(true);
    await expect(store.openRun(input)).rejects.toMatchObject({
      code: 'STATE_MISMATCH',
      message: expect.stringMatching(/moved from postgres:\/\/.* to .*state at /),
      hint: expect.stringContaining('runner state push '),
    });
    const back = await openRunState(folder());
    expect(back.jobs.get('j1')?.attempts[0]?.status).toBe('running');
    await back.journal.append({ type: 'completed', id: 'j1', attempt: 1, resultUrls: [] });
    await back.close();

    // And into the database again: its copy is replaced by the folder's, which went on.
    expect(await pushRunState({ ...folder(), stateUrl: url })).toBe(5);
    const again = await store.openRun(input);
    expect(again.jobs.get('j1')?.status).toBe('done');
    await again.close();
  });

  it('a push whose copy outlasts its lease commits nothing', async () => {
    const url = await cluster().createDatabase();
    await folderRun();
    const query = pg.Client.prototype.query;
    let broke = false;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : '';
      const run = () => (query as (...a: unknown[]) => unknown).apply(this, args);
      if (!broke && text.includes('FROM unnest($5::text[], $6::text[])')) {
        broke = true;
        // The copy stalls past its lease, and the lease is taken from it meanwhile.
        return breakLease(url, { pipeline: 'p', runId: 'r1' }).then(run);
      }
      return run();
    });
    await expect(pushRunState({ ...folder(), stateUrl: url })).rejects.toMatchObject({
      code: 'STATE_LOCKED',
    });
    vi.restoreAllMocks();
    expect(broke).toBe(true);
    expect(await countRecords(url)).toBe(0);
    // The folder was left usable.
    await (await openRunState(folder())).close();
  });

  it('a claim is not given up as finished by a process whose lease ran out: it passes to the next taker', async () => {
    const store = createPostgresStore(await cluster().createDatabase());
    const address = (machine: string, leaseTtlMs: number): OpenRunInput => ({
      ...folder(),
      uploadCachePath: join(work.dir, `uploads-${machine}.json`),
      leaseTtlMs,
      machine,
    });
    // The late process's heartbeat never beats: its lease runs out while it works on its job.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const late = await store.openRun(address('late', 2_000)).finally(() => vi.useRealTimers());
    const taker = await store.openRun(address('taker', 10_000));
    try {
      const cl = coordinationOf(late);
      await cl.enqueue(['j1']);
      const claim = await cl.claim(1);
      expect(claim).toMatchObject({ kind: 'claimed', id: 'j1' });
      await sleep(2_300);
      await cl.finish('j1', true);
      expect(await coordinationOf(taker).claim(1)).toMatchObject({ kind: 'claimed', id: 'j1', from: 'late' });
    } finally {
      await taker.close();
      await late.close();
    }
  });
});
