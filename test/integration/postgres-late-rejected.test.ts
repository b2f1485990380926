import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pullRunState } from '../../src/state/backends/folder/move-run-state.js';
import { openRunState } from '../../src/state/backends/folder/open-run-state.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import type { StateStore } from '../../src/state/state-store.js';
import { pgAvailable, withPgClient } from '../pg-cluster.js';
import { usePgWorkFolder } from './pg-work-folder.js';

/**
 * A late record (#31.9) that no longer fits its job warns once on PostgreSQL, as on the folder: the
 * apply that opens the run under its lease and passes it over sets it aside (kept in the table, named
 * in the warning), so the next open and `status` are quiet about it. `status` alone changes nothing.
 */
describe.runIf(pgAvailable())('PostgreSQL: a late record that no longer fits', () => {
  const work = usePgWorkFolder('runner-pg-late-rejected-', { leaseTtlMs: 600 });
  const late = (warnings: string[]) => warnings.filter((warning) => /late "created" record/.test(warning));

  /**
   * Run r1 with job v1 answered (job-1) and v2 uncertain; then, as a runner whose lease ended
   * mid-create stores them, a late answer for v1 naming another job (it cannot fit) and one for v2.
   */
  async function runWithLateRecords(): Promise<{ url: string; store: StateStore }> {
    const url = await work.cluster().createDatabase();
    const store = createPostgresStore(url);
    const first = await store.openRun(work.address());
    await first.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    await first.journal.append({ type: 'created', id: 'v1', attempt: 1, jobId: 'job-1' });
    await first.journal.append({ type: 'intent', id: 'v2', attempt: 1, payloadHash: 'h' });
    await first.journal.append({ type: 'uncertain', id: 'v2', attempt: 1, reason: 'no answer' });
    await first.close();
    await withPgClient(url, async (client) => {
      for (const [id, jobId] of [
        ['v1', 'job-2'],
        ['v2', 'job-3'],
      ] as const) {
        await client.query(
          `INSERT INTO runner_records (pipeline, run_id, record, lease_token, holder, job_id)
           VALUES ('p', 'r1', $1, 1, 'old holder', $2)`,
          [JSON.stringify({ type: 'created', id, attempt: 1, jobId, at: 5, late: true }), id],
        );
      }
    });
    return { url, store };
  }

  it('warns at the open that passes it over, then is set aside: the next open and status say nothing', async () => {
    const { url, store } = await runWithLateRecords();
    const second = await store.openRun(work.address());
    const warned = late(second.warnings);
    expect(second.jobs.get('v1')?.attempts[0]?.jobId).toBe('job-1');
    expect(second.jobs.get('v2')?.attempts[0]?.jobId).toBe('job-3');
    await second.close();
    expect(warned).toEqual([expect.stringContaining('job-2')]);
    expect(warned[0]).toMatch(/Set aside for you to read \(runner_records, seq \d+/);

    // Kept for a person, marked.
    const kept = await withPgClient(url, async (client) =>
      (
        await client.query<{ record: string }>(
          'SELECT record FROM runner_records WHERE set_aside_at IS NOT NULL ORDER BY seq',
        )
      ).rows.map((row) => JSON.parse(row.record) as { id: string; jobId: string }),
    );
    expect(kept).toEqual([expect.objectContaining({ id: 'v1', jobId: 'job-2', late: true })]);

    const third = await store.openRun(work.address());
    const again = late(third.warnings);
    expect(third.jobs.get('v1')?.attempts[0]?.jobId).toBe('job-1');
    expect(third.jobs.get('v2')?.attempts[0]?.jobId).toBe('job-3');
    await third.close();
    expect(again).toEqual([]);
    expect(late((await store.readRun(work.address())).replay.warnings)).toEqual([]);
  });

  it('status alone does not set it aside: it warns until an apply opens the run', async () => {
    const { url, store } = await runWithLateRecords();
    expect(late((await store.readRun(work.address())).replay.warnings)).toEqual([
      expect.stringContaining('The next apply sets it aside'),
    ]);
    expect(late((await store.readRun(work.address())).replay.warnings)).toHaveLength(1);
    const setAside = () =>
      withPgClient(
        url,
        async (client) =>
          (await client.query('SELECT 1 FROM runner_records WHERE set_aside_at IS NOT NULL')).rowCount,
      );
    expect(await setAside()).toBe(0);
    const open = await store.openRun(work.address());
    await open.close();
    expect(late(open.warnings)).toHaveLength(1);
    expect(await setAside()).toBe(1);
    expect(late((await store.readRun(work.address())).replay.warnings)).toEqual([]);
  });

  it("a pull keeps a record set aside apart, in the folder's late.rejected.jsonl: the folder is quiet too", async () => {
    const { url, store } = await runWithLateRecords();
    await (await store.openRun(work.address())).close();
    const folder = { ...work.address(), stateDir: join(work.dir, 'state') };
    await pullRunState({ ...folder, stateUrl: url });
    const pulled = await openRunState(folder);
    await pulled.close();
    expect(late(pulled.warnings)).toEqual([]);
    expect(pulled.jobs.get('v1')?.attempts[0]?.jobId).toBe('job-1');
    expect(pulled.jobs.get('v2')?.attempts[0]?.jobId).toBe('job-3');
    const kept = (await readFile(join(pulled.dir, 'late.rejected.jsonl'), 'utf8')).trim().split('\n');
    expect(kept.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({ id: 'v1', jobId: 'job-2', late: true }),
    ]);
  });
});
