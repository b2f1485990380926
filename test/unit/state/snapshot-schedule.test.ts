import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRunState } from '../../../src/state/backends/folder/open-run-state.js';
import type { JobState } from '../../../src/state/job-state.js';
import type { JournalEntry } from '../../../src/state/records.js';
import { applyJournalRecord } from '../../../src/state/replay.js';
import { replayJournalFile } from '../../../src/state/backends/folder/replay-run-journal.js';
import { replayRunJournal } from '../../../src/state/backends/folder/replay-run-journal.js';
import { viewJobState } from '../../../src/state/stored-job.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-snapshot-schedule-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const where = () => ({ manifestFile: join(dir, 'm.yaml'), pipeline: 'p', runId: 'r', snapshotEvery: 4 });

/** What the executor does with each record: journal it, apply it to the live state, report it. */
async function record(
  state: Awaited<ReturnType<typeof openRunState>>,
  jobs: Map<string, JobState>,
  entry: JournalEntry,
) {
  const written = await state.journal.append(entry);
  applyJournalRecord(jobs, written);
  state.snapshots.afterRecord(written, jobs);
}

/** Each job's whole state, also of jobs read from a snapshot (kept on disk until used). */
const whole = (jobs: ReadonlyMap<string, JobState>) => [...jobs].map(([id, job]) => [id, viewJobState(job)]);

describe('snapshot schedule', () => {
  it('snapshots during a run once max(every, jobs) records came, and at its end; the next open reads it', async () => {
    const state = await openRunState(where());
    const jobs = new Map(state.jobs);
    const snapshotFile = join(state.dir, 'snapshot.jsonl');
    await record(state, jobs, { type: 'run', runId: 'r', pipeline: 'p', pid: 1, manifestFile: 'm.yaml' });
    for (const id of ['a', 'b'])
      await record(state, jobs, { type: 'intent', id, attempt: 1, payloadHash: id });
    // The header and three records: under the interval of 4.
    await expect(stat(snapshotFile)).rejects.toMatchObject({ code: 'ENOENT' });
    await record(state, jobs, { type: 'created', id: 'a', attempt: 1, jobId: 's1' });
    // Written inside journal.exclusive: the next append waits for it.
    await record(state, jobs, { type: 'completed', id: 'a', attempt: 1, resultUrls: ['u'] });
    const during = await replayRunJournal(join(state.dir, 'journal.jsonl'));
    expect(during.snapshot).toEqual({ bytes: expect.any(Number), lines: 5 });
    expect((await stat(snapshotFile)).mode & 0o777).toBe(0o600);

    expect(await state.snapshots.finish(jobs)).toEqual([]);
    expect(state.snapshots.finalState()).toBe(jobs);
    await state.close();
    const after = await replayRunJournal(join(state.dir, 'journal.jsonl'));
    expect(after.snapshot).toEqual({ bytes: after.end.bytes, lines: 6 });
    const full = await replayJournalFile(join(state.dir, 'journal.jsonl'));
    expect(whole(after.replay.jobs)).toEqual(whole(full.jobs));
    expect(whole(after.replay.jobs)).toEqual(whole(jobs));
    expect(after.replay.runs).toEqual(full.runs);
    expect(after.replay.header).toEqual(full.header);

    // A resumed run that adds a record or two does not rewrite every job's state for them...
    const again = await openRunState({ ...where(), snapshotEvery: 1000 });
    const live = new Map(again.jobs);
    expect(whole(live)).toEqual(whole(jobs));
    await record(again, live, { type: 'run', runId: 'r', pipeline: 'p', pid: 2, manifestFile: 'm.yaml' });
    const before = (await stat(snapshotFile)).mtimeMs;
    await again.snapshots.finish(new Map(Array.from({ length: 20 }, (_, i) => [`x${i}`, jobs.get('a')!])));
    await again.close();
    expect((await stat(snapshotFile)).mtimeMs).toBe(before);
    // ...and the replay reads that record from the journal after the snapshot.
    const resumed = await replayRunJournal(join(state.dir, 'journal.jsonl'));
    expect(resumed.snapshot?.lines).toBe(6);
    expect(resumed.replay.runs.map((run) => run.pid)).toEqual([1, 2]);
  });
});
