import { describe, expect, it } from 'vitest';
import type { ExecutionEvent } from '../../src/execute/events.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { pgAvailable } from '../pg-cluster.js';
import { imageJob } from './executor-harness.js';
import {
  executeOnRun,
  forgeRecord,
  joinRun,
  leaseTokenOf,
  planOf,
  quickOptions,
  startService,
  usePgWorkFolder,
} from './pg-work-folder.js';

/**
 * Records another process wrote to a shared run after this one replayed it are read with the checks
 * a replay makes (#31.10): a forged row is refused the same way on the claim path and at the end.
 */
describe.runIf(pgAvailable())('records read mid-run from a shared PostgreSQL run', () => {
  const work = usePgWorkFolder('runner-pg-shared-records-', { leaseTtlMs: 5_000 });
  const { address } = work;

  it('a forged "completed" row of a job not yet claimed is refused by the claim, not downloaded', async () => {
    const url = await work.cluster().createDatabase();
    const { sim, connect } = await startService(3, 1);
    const client = connect();
    const state = await createPostgresStore(url).openRun(address('a'));
    try {
      await joinRun(state);
      // Written after this process replayed the run: the claim reads it, replay never did.
      const forged = 'http://127.0.0.1:9/forged.png';
      await forgeRecord(url, leaseTokenOf(state), 'j1', {
        type: 'completed',
        at: 1,
        id: 'j1',
        attempt: 1,
        resultUrls: [forged],
      });
      const events: ExecutionEvent[] = [];
      const summary = await executeOnRun(planOf(work.dir, [imageJob('j1', 'a fox')]), state, {
        client,
        events,
        options: quickOptions(work.dir, { download: true }),
      });
      const stops = events.filter((event) => event.type === 'stopped-creating');
      expect(stops.map((event) => event.message)).toEqual([
        expect.stringMatching(
          /The records of job j1 of run "r1" hold a record no runner wrote \(the 1st of them\): a "completed" record for attempt 1 of job j1, which was never intended/,
        ),
      ]);
      expect(summary.jobs.find((job) => job.id === 'j1')?.outcome).not.toBe('done');
      expect(summary.jobs.find((job) => job.id === 'j1')?.outcome).not.toBe('downloading');
      expect(JSON.stringify(summary)).not.toContain(forged);
      expect(sim.stats().jobsCreated).toBe(0);
    } finally {
      await state.close();
      await client.close();
      await sim.close();
    }
  });

  it("a forged row among the other runners' records is refused when this apply reads them at its end", async () => {
    const url = await work.cluster().createDatabase();
    const state = await createPostgresStore(url).openRun(address('a'));
    try {
      const coordination = await joinRun(state);
      await forgeRecord(url, '999', 'j2', { type: 'intent', at: 1, id: 'j2', attempt: 1, payloadHash: 'h' });
      await forgeRecord(url, '999', 'j2', { type: 'created', at: 2, id: 'j2', attempt: 1, jobId: 'job-1' });
      // The same attempt, a second job id: a runner never writes it.
      await forgeRecord(url, '999', 'j2', { type: 'created', at: 3, id: 'j2', attempt: 1, jobId: 'job-2' });
      await expect(coordination.readOthersJobs()).rejects.toMatchObject({
        code: 'STATE_CORRUPT',
        message: expect.stringMatching(/the 3rd of them\): a "created" record naming job job-2/),
      });
    } finally {
      await state.close();
    }
  });
});
