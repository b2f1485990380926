import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkJournal, cutJournal } from '../../../src/state/backends/folder/check-journal.js';
import type { JobState } from '../../../src/state/job-state.js';
import { replayRunJournal } from '../../../src/state/backends/folder/replay-run-journal.js';
import { SNAPSHOT_FILE } from '../../../src/state/snapshot-format.js';
import { viewJobState } from '../../../src/state/stored-job.js';
import { writeSnapshot } from '../../../src/state/backends/folder/snapshot-file.js';

let dir: string;
let journalPath: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-check-journal-'));
  journalPath = join(dir, 'journal.jsonl');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const good = [
  { type: 'journal', at: 0, version: 2, pipeline: 'p', runId: 'r' },
  { type: 'intent', at: 1, id: 'a', attempt: 1, payloadHash: 'ha' },
  { type: 'created', at: 2, id: 'a', attempt: 1, jobId: 'J1', creditCost: 4 },
  { type: 'completed', at: 3, id: 'a', attempt: 1, resultUrls: ['https://x/a.png'], creditCost: 4 },
]
  .map((record) => `${JSON.stringify(record)}\n`)
  .join('');
const forged = `${JSON.stringify({ type: 'completed', at: 4, id: 'b', attempt: 7, resultUrls: [] })}\n`;
const later = `${JSON.stringify({ type: 'intent', at: 5, id: 'c', attempt: 1, payloadHash: 'hc' })}\n`;

async function snapshotNow(jobs?: Map<string, JobState>): Promise<void> {
  const reading = await replayRunJournal(journalPath);
  await writeSnapshot(journalPath, {
    position: reading.end,
    jobs: jobs ?? reading.replay.jobs,
    meta: reading.checkpoint,
    at: 9,
  });
}

describe('runner state check (#24.4)', () => {
  it('names the first bad line and cuts the journal there, keeping a copy and a snapshot of what stays', async () => {
    await writeFile(journalPath, good);
    await snapshotNow();
    await writeFile(journalPath, good + forged + later);
    const found = await checkJournal(journalPath);
    expect(found.problem).toEqual({
      line: 5,
      offset: Buffer.byteLength(good),
      reason: 'a "completed" record for attempt 7 of job b, which was never intended (no intent before it)',
    });
    expect(found.lines).toBe(4);
    const repair = await cutJournal(journalPath, found.problem!, new Date(Date.UTC(2026, 10, 25, 6, 0)));
    expect(await readFile(journalPath, 'utf8')).toBe(good);
    expect(repair.copy).toBe(`${journalPath}.before-repair-2026-11-25T06-00-00.000Z`);
    expect(await readFile(repair.copy, 'utf8')).toBe(good + forged + later);
    expect((await stat(repair.copy)).mode & 0o777).toBe(0o600);
    expect(repair.snapshotRemoved).toBe(false);
    expect(existsSync(join(dir, SNAPSHOT_FILE))).toBe(true);
    expect(await checkJournal(journalPath)).toMatchObject({ lines: 4, warnings: [] });
    expect((await checkJournal(journalPath)).problem).toBeUndefined();
  });

  it('removes a snapshot that covers lines past the cut', async () => {
    await writeFile(journalPath, good + forged);
    await writeFile(
      join(dir, SNAPSHOT_FILE),
      `${JSON.stringify({ type: 'snapshot', journal: { bytes: 99_999 } })}\n`,
    );
    const found = await checkJournal(journalPath);
    expect(found.snapshotProblem).toBeDefined();
    const repair = await cutJournal(journalPath, found.problem!, new Date());
    expect(repair.snapshotRemoved).toBe(true);
    expect(existsSync(join(dir, SNAPSHOT_FILE))).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(['journal.jsonl', repair.copy.slice(dir.length + 1)].sort());
  });

  it('distrusts a snapshot whose stored job state no replay could give (its checksum holding)', async () => {
    await writeFile(journalPath, good);
    const replay = (await replayRunJournal(journalPath)).replay;
    const job = structuredClone(viewJobState(replay.jobs.get('a')!));
    // Done by its status, yet its one attempt failed and is to be retried: a forged state.
    job.attempts[0]!.outcome = 'retry';
    await snapshotNow(new Map([['a', job]]));
    const found = await checkJournal(journalPath);
    expect(found.problem).toBeUndefined();
    expect(found.snapshotProblem).toMatch(/no readable state for job a/);
    const reading = await replayRunJournal(journalPath);
    expect(() => viewJobState(reading.replay.jobs.get('a')!)).toThrow(/no readable state for job a/);
  });
});
