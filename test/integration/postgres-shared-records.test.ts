import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ExecutionEvent } from '../../src/execute/events.js';
import { executePlan } from '../../src/execute/executor.js';
import type { Plan } from '../../src/plan/types.js';
import { createServiceClient } from '../../src/service/client.js';
import { startSimulator } from '../../src/simulator/index.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import type { OpenRunInput, RunState } from '../../src/state/state-store.js';
import { createMemoryUploadCache } from '../../src/state/upload-cache.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { imageJob } from './executor-harness.js';

/**
 * Records another process wrote to a shared run after this one replayed it are read with the checks
 * a replay makes (#31.10): a forged row is refused the same way on the claim path and at the end.
 */
describe.runIf(pgAvailable())('records read mid-run from a shared PostgreSQL run', () => {
  const cluster = usePgCluster();
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-pg-shared-records-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const address = (machine: string): OpenRunInput => ({
    manifestFile: join(dir, 'm.yaml'),
    pipeline: 'p',
    runId: 'r1',
    uploadCachePath: join(dir, `uploads-${machine}.json`),
    leaseTtlMs: 5_000,
    machine,
  });

  const tokenOf = (state: RunState): string => (state.lock as { token?: string }).token ?? '';

  /** Inserts a record as no runner would: straight into the table, under `token`'s name. */
  async function forge(url: string, token: string, id: string, record: object): Promise<void> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO runner_records (pipeline, run_id, record, lease_token, holder, job_id)
         VALUES ('p', 'r1', $1, $2, 'someone', $3)`,
        [JSON.stringify(record), token, id],
      );
    } finally {
      await client.end();
    }
  }

  it('a forged "completed" row of a job not yet claimed is refused by the claim, not downloaded', async () => {
    const url = await cluster().createDatabase();
    const sim = await startSimulator({ timeScale: 0.002, seed: 3 });
    const client = createServiceClient({
      baseUrl: sim.baseUrl,
      apiKey: sim.apiKey,
      retry: { maxRetries: 1, baseDelayMs: 5, maxDelayMs: 20 },
    });
    const state = await createPostgresStore(url).openRun(address('a'));
    try {
      const coordination = state.coordination;
      if (coordination === undefined) throw new Error('no coordination');
      await coordination.join('plan-1');
      // Written after this process replayed the run: the claim reads it, replay never did.
      const forged = 'http://127.0.0.1:9/forged.png';
      await forge(url, tokenOf(state), 'j1', {
        type: 'completed',
        at: 1,
        id: 'j1',
        attempt: 1,
        resultUrls: [forged],
      });
      const plan: Plan = {
        pipeline: 'p',
        manifestFile: join(dir, 'm.yaml'),
        jobs: [imageJob('j1', 'a fox')],
        warnings: [],
      };
      const events: ExecutionEvent[] = [];
      const summary = await executePlan(
        plan,
        {
          client,
          journal: state.journal,
          lock: state.lock,
          state: state.jobs,
          clock: systemClock,
          uploadCache: createMemoryUploadCache(),
          snapshots: state.snapshots,
          coordination,
          signal: new AbortController().signal,
          onEvent: (event) => events.push(event),
        },
        {
          runId: 'r1',
          pollIntervalMs: [10, 30],
          firstPollAfterMs: 20,
          retry: { backoffMs: 5 },
          download: true,
          outputDir: join(dir, 'out'),
        },
      );
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
    const url = await cluster().createDatabase();
    const state = await createPostgresStore(url).openRun(address('a'));
    try {
      const coordination = state.coordination;
      if (coordination === undefined) throw new Error('no coordination');
      await coordination.join('plan-1');
      await forge(url, '999', 'j2', { type: 'intent', at: 1, id: 'j2', attempt: 1, payloadHash: 'h' });
      await forge(url, '999', 'j2', { type: 'created', at: 2, id: 'j2', attempt: 1, jobId: 'job-1' });
      // The same attempt, a second job id: a runner never writes it.
      await forge(url, '999', 'j2', { type: 'created', at: 3, id: 'j2', attempt: 1, jobId: 'job-2' });
      await expect(coordination.readOthersJobs()).rejects.toMatchObject({
        code: 'STATE_CORRUPT',
        message: expect.stringMatching(/the 3rd of them\): a "created" record naming job job-2/),
      });
    } finally {
      await state.close();
    }
  });
});
