import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendLateRecord } from '../../src/state/backends/folder/late-records.js';
import { journalPathFor } from '../../src/state/backends/folder/journal.js';
import { pullRunState, pushRunState } from '../../src/state/backends/folder/move-run-state.js';
import { openRunState } from '../../src/state/backends/folder/open-run-state.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { breakLease } from '../../src/state/backends/postgres/run-records.js';
import { summarizeJob, type JobState } from '../../src/state/job-state.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';

/**
 * `state pull` and `state push` wait, as a taker does (#31.9, `lateAnswerWaitMs`), for the answer to
 * a video create (no idempotency key) in flight when its sender's lease ended moments before the
 * move: copied before that answer is stored, the copy would call the job uncertain, and
 * `--resend-uncertain` there would pay for it twice. The answer comes while the move waits (the
 * move's `onWait` hears it is waiting, and the sender stores its answer then): no clock involved.
 */
describe.runIf(pgAvailable())('moving a run while a video create is in flight', () => {
  const cluster = usePgCluster();
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-pg-move-wait-'));
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
  const summary = (job: JobState | undefined) => (job === undefined ? undefined : summarizeJob(job));

  it('pull waits for the answer of a holder whose lease was just broken, and copies it', async () => {
    const url = await cluster().createDatabase();
    const store = createPostgresStore(url);
    // Machine a sends a video create on the database; its lease is broken while the create is out.
    const a = await store.openRun({ ...folder(), stateUrl: url, leaseTtlMs: 3_000, machine: 'a' });
    await a.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    expect(await breakLease(url, { pipeline: 'p', runId: 'r1' })).toBe(true);
    const waits: string[] = [];
    let answered: Promise<boolean | undefined> | undefined;
    await pullRunState({
      ...folder(),
      stateUrl: url,
      onWait: (message) => {
        waits.push(message);
        // While the pull waits, a's create is answered: a keeps the job it paid for as a late record.
        answered = a.journal.appendLate?.({ type: 'created', id: 'v1', attempt: 1, jobId: 'job-9' });
      },
    });
    expect(await answered).toBe(true);
    await a.close().catch(() => undefined);
    expect(waits).toEqual([expect.stringMatching(/^Job v1: .* sent by a, .*waiting up to \d+ s/)]);
    const pulled = await openRunState(folder());
    await pulled.close();
    expect(summary(pulled.jobs.get('v1'))).toMatchObject({ status: 'open', lastJobId: 'job-9' });
  });

  it('pull does not wait for a holder whose lease ended longer ago than the window', async () => {
    const url = await cluster().createDatabase();
    const store = createPostgresStore(url);
    const a = await store.openRun({ ...folder(), stateUrl: url, leaseTtlMs: 3_000, machine: 'a' });
    await a.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    expect(await breakLease(url, { pipeline: 'p', runId: 'r1' })).toBe(true);
    await a.close().catch(() => undefined);
    const waits: string[] = [];
    await pullRunState({ ...folder(), stateUrl: url, lateAnswerWindowMs: 0, onWait: (m) => waits.push(m) });
    expect(waits).toEqual([]);
    const pulled = await openRunState(folder());
    await pulled.close();
    expect(summary(pulled.jobs.get('v1'))?.status).not.toBe('open');
  });

  it('push waits for the answer of a folder holder whose lock it took over, and copies it', async () => {
    const url = await cluster().createDatabase();
    // Machine a (another host sharing the folder) sends a video create; then it is paused, and its
    // lock went stale just now: it stopped creating half its stale time after its last refresh.
    const a = await openRunState({
      ...folder(),
      uploadCachePath: join(dir, 'uploads-a.json'),
      lock: {
        identity: { hostname: 'host-a', bootId: 'boot-a', pidNamespace: 'pid:[a]' },
        heartbeatMs: 600_000,
      },
    });
    await a.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    const journalPath = journalPathFor(a.dir);
    const past = new Date(Date.now() - 31_000);
    await utimes(join(a.dir, 'lock'), past, past);
    const waits: string[] = [];
    let answered: Promise<void> | undefined;
    await pushRunState({
      ...folder(),
      stateUrl: url,
      onWait: (message) => {
        waits.push(message);
        answered = appendLateRecord(journalPath, {
          type: 'created',
          id: 'v1',
          attempt: 1,
          jobId: 'job-9',
          at: 5,
        });
      },
    });
    await answered;
    await a.close().catch(() => undefined);
    expect(waits).toEqual([expect.stringMatching(/^Job v1: .*waiting up to \d+ s/)]);
    const reading = await createPostgresStore(url).readRun({ ...folder(), stateUrl: url });
    expect(summary(reading.replay.jobs.get('v1'))).toMatchObject({ status: 'open', lastJobId: 'job-9' });
  });
});
