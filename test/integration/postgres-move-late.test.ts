import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendLateRecord } from '../../src/state/backends/folder/late-records.js';
import { journalPathFor } from '../../src/state/backends/folder/journal.js';
import { pullRunState, pushRunState } from '../../src/state/backends/folder/move-run-state.js';
import { openRunState } from '../../src/state/backends/folder/open-run-state.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import { summarizeJob } from '../../src/state/job-state.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';

/**
 * A late record (#31.9: a create's answer kept by a runner whose lock was taken over) waiting in a
 * run's folder moves with the run: `state push` carries it into the database, `state pull` brings
 * the database's back, and neither drops one silently: one that lands in the database's copy after
 * a pull (its sender's lease was broken) is carried back by the next push, not deleted with that copy.
 */
describe.runIf(pgAvailable())('moving a run with a late record waiting', () => {
  const cluster = usePgCluster();
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-pg-move-late-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const folder = () => ({
    manifestFile: join(dir, 'm.yaml'),
    pipeline: 'p',
    runId: 'r1',
    stateDir: join(dir, 'state'),
    uploadCachePath: join(dir, 'uploads.json'),
  });

  /** A video create the taker called uncertain, whose answer its sender kept late in `late.jsonl`. */
  async function folderRunWithLateAnswer(): Promise<string> {
    const state = await openRunState(folder());
    await state.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    await state.journal.append({ type: 'uncertain', id: 'v1', attempt: 1, reason: 'no answer' });
    const journalPath = journalPathFor(state.dir);
    await state.close();
    await appendLateRecord(journalPath, { type: 'created', id: 'v1', attempt: 1, jobId: 'job-9', at: 5 });
    return journalPath;
  }

  it('push carries it into the database: the paid job is followed there', async () => {
    const url = await cluster().createDatabase();
    await folderRunWithLateAnswer();
    await pushRunState({ ...folder(), stateUrl: url });
    const store = createPostgresStore(url);
    const reading = await store.readRun({ ...folder(), stateUrl: url });
    const v1 = reading.replay.jobs.get('v1');
    expect(v1 === undefined ? undefined : summarizeJob(v1)).toMatchObject({
      status: 'open',
      lastJobId: 'job-9',
    });
  });

  it("pull into the folder the push left: the database's history comes back with the paid job", async () => {
    const url = await cluster().createDatabase();
    await folderRunWithLateAnswer();
    await pushRunState({ ...folder(), stateUrl: url });
    await pullRunState({ ...folder(), stateUrl: url });
    const back = await openRunState(folder());
    await back.close();
    const v1 = back.jobs.get('v1');
    expect(v1 === undefined ? undefined : summarizeJob(v1)).toMatchObject({
      status: 'open',
      lastJobId: 'job-9',
    });
  });

  it('a late answer kept in the folder after a push is adopted when the run is pulled back', async () => {
    const url = await cluster().createDatabase();
    const state = await openRunState(folder());
    await state.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    await state.journal.append({ type: 'uncertain', id: 'v1', attempt: 1, reason: 'no answer' });
    const journalPath = journalPathFor(state.dir);
    await state.close();
    await pushRunState({ ...folder(), stateUrl: url });
    await appendLateRecord(journalPath, { type: 'created', id: 'v1', attempt: 1, jobId: 'job-9', at: 5 });
    await pullRunState({ ...folder(), stateUrl: url });
    const back = await openRunState(folder());
    await back.close();
    const v1 = back.jobs.get('v1');
    expect(v1 === undefined ? undefined : summarizeJob(v1)).toMatchObject({
      status: 'open',
      lastJobId: 'job-9',
    });
  });

  it('a late answer stored in the database after a pull is carried back by the push, not deleted', async () => {
    const url = await cluster().createDatabase();
    const store = createPostgresStore(url);
    const address = { ...folder(), stateUrl: url, leaseTtlMs: 3_000, machine: 'a' };
    // Machine a sends a video create on the database; its lease is broken while the create is out.
    const a = await store.openRun(address);
    await a.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    expect(await breakLease(url, { pipeline: 'p', runId: 'r1' })).toBe(true);
    // The run is pulled into a folder, and only then does a's create get its answer, kept late.
    await pullRunState({ ...folder(), stateUrl: url });
    expect(await a.journal.appendLate?.({ type: 'created', id: 'v1', attempt: 1, jobId: 'job-9' })).toBe(
      true,
    );
    await a.close().catch(() => undefined);
    // The folder goes on (the create is uncertain there) and is pushed back.
    const back = await openRunState(folder());
    await back.journal.append({ type: 'uncertain', id: 'v1', attempt: 1, reason: 'no answer' });
    await back.close();
    await pushRunState({ ...folder(), stateUrl: url });
    const reading = await store.readRun(address);
    const v1 = reading.replay.jobs.get('v1');
    expect(v1 === undefined ? undefined : summarizeJob(v1)).toMatchObject({
      status: 'open',
      lastJobId: 'job-9',
    });
  });
});
