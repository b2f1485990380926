import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { appendLateRecord } from '../../src/state/backends/folder/late-records.js';
import { journalPathFor } from '../../src/state/backends/folder/journal.js';
import { pullRunState, pushRunState } from '../../src/state/backends/folder/move-run-state.js';
import { openRunState } from '../../src/state/backends/folder/open-run-state.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import { summarizeJob, type JobState } from '../../src/state/job-state.js';
import { pgAvailable } from '../pg-cluster.js';
import { usePgWorkFolder } from './pg-work-folder.js';

/**
 * A late record (#31.9: a create's answer kept by a runner whose lock was taken over) waiting in a
 * run's folder moves with the run: `state push` carries it into the database, `state pull` brings
 * the database's back, and neither drops one silently: one that lands in the database's copy after
 * a pull (its sender's lease was broken) is carried back by the next push, not deleted with that copy.
 */
describe.runIf(pgAvailable())('moving a run with a late record waiting', () => {
  const work = usePgWorkFolder('runner-pg-move-late-', { leaseTtlMs: 3_000 });
  let url = '';
  beforeEach(async () => {
    url = await work.cluster().createDatabase();
  });

  /** Run r1 in its folder (`state/` in the work folder). */
  const folder = () => ({
    manifestFile: join(work.dir, 'm.yaml'),
    pipeline: 'p',
    runId: 'r1',
    stateDir: join(work.dir, 'state'),
    uploadCachePath: join(work.dir, 'uploads.json'),
  });
  /** The same run, moved to or from the database. */
  const moved = () => ({ ...folder(), stateUrl: url });

  /** A video create the taker called uncertain; returns the folder's journal. */
  async function folderRunUncertain(): Promise<string> {
    const state = await openRunState(folder());
    await state.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    await state.journal.append({ type: 'uncertain', id: 'v1', attempt: 1, reason: 'no answer' });
    await state.close();
    return journalPathFor(state.dir);
  }

  /** Its answer, kept late in `late.jsonl` by its sender: job-9 was made (paid). */
  const keepLateAnswer = (journalPath: string) =>
    appendLateRecord(journalPath, { type: 'created', id: 'v1', attempt: 1, jobId: 'job-9', at: 5 });

  /** The folder's jobs, as the next apply there opens them (late answers adopted). */
  async function folderJobs(): Promise<Map<string, JobState>> {
    const back = await openRunState(folder());
    await back.close();
    return back.jobs;
  }

  /** The paid job is on record and followed: v1 open as job-9. */
  function expectPaidJob(jobs: ReadonlyMap<string, JobState>): void {
    const v1 = jobs.get('v1');
    expect(v1 === undefined ? undefined : summarizeJob(v1)).toMatchObject({
      status: 'open',
      lastJobId: 'job-9',
    });
  }

  it('push carries it into the database: the paid job is followed there', async () => {
    await keepLateAnswer(await folderRunUncertain());
    await pushRunState(moved());
    expectPaidJob((await createPostgresStore(url).readRun(moved())).replay.jobs);
  });

  it("pull into the folder the push left: the database's history comes back with the paid job", async () => {
    await keepLateAnswer(await folderRunUncertain());
    await pushRunState(moved());
    await pullRunState(moved());
    expectPaidJob(await folderJobs());
  });

  it('a late answer kept in the folder after a push is adopted when the run is pulled back', async () => {
    const journalPath = await folderRunUncertain();
    await pushRunState(moved());
    await keepLateAnswer(journalPath);
    await pullRunState(moved());
    expectPaidJob(await folderJobs());
  });

  it('a late answer stored in the database after a pull is carried back by the push, not deleted', async () => {
    const store = createPostgresStore(url);
    const address = { ...moved(), leaseTtlMs: 3_000, machine: 'a' };
    // Machine a sends a video create on the database; its lease is broken while the create is out.
    const a = await store.openRun(address);
    await a.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    expect(await breakLease(url, { pipeline: 'p', runId: 'r1' })).toBe(true);
    // The run is pulled into a folder, and only then does a's create get its answer, kept late: an
    // answer that comes after the pull's wait for it (#31.9; no wait here).
    await pullRunState({ ...moved(), lateAnswerWindowMs: 0 });
    expect(await a.journal.appendLate?.({ type: 'created', id: 'v1', attempt: 1, jobId: 'job-9' })).toBe(
      true,
    );
    await a.close().catch(() => undefined);
    // The folder goes on (the create is uncertain there) and is pushed back.
    const back = await openRunState(folder());
    await back.journal.append({ type: 'uncertain', id: 'v1', attempt: 1, reason: 'no answer' });
    await back.close();
    await pushRunState(moved());
    expectPaidJob((await store.readRun(address)).replay.jobs);
  });
});
