import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendLateRecord } from '../../src/state/backends/folder/late-records.js';
import { journalPathFor } from '../../src/state/backends/folder/journal.js';
import { openRunState } from '../../src/state/backends/folder/open-run-state.js';
import { readRunState } from '../../src/state/backends/folder/read-run-state.js';
import type { OpenRunInput } from '../../src/state/state-store.js';

/**
 * A late record (#31.9 on the folder) that no longer fits its job warns once: the open that passes
 * it over sets it aside in `late.rejected.jsonl` (kept for a person, named in the warning), so the
 * next open and `status` are quiet about it.
 */
describe('a late record that no longer fits', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-late-rejected-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const address = (): OpenRunInput => ({
    manifestFile: join(dir, 'm.yaml'),
    stateDir: join(dir, 'state'),
    pipeline: 'p',
    runId: 'r1',
    uploadCachePath: join(dir, 'uploads.json'),
  });
  const late = (warnings: string[]) => warnings.filter((warning) => /late "created" record/.test(warning));

  it('warns at the open that passes it over, then is set aside: the next open and status say nothing', async () => {
    const first = await openRunState(address());
    await first.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    await first.journal.append({ type: 'created', id: 'v1', attempt: 1, jobId: 'job-1' });
    await first.journal.append({ type: 'intent', id: 'v2', attempt: 1, payloadHash: 'h' });
    await first.journal.append({ type: 'uncertain', id: 'v2', attempt: 1, reason: 'no answer' });
    const journalPath = journalPathFor(first.dir);
    const runDir = first.dir;
    await first.close();
    // A runner whose lock was taken over learned another job id for the attempt: it cannot fit.
    await appendLateRecord(journalPath, { type: 'created', id: 'v1', attempt: 1, jobId: 'job-2', at: 5 });
    // A fitting one beside it is adopted as before.
    await appendLateRecord(journalPath, { type: 'created', id: 'v2', attempt: 1, jobId: 'job-3', at: 6 });
    const second = await openRunState(address());
    const warned = late(second.warnings);
    await second.close();
    expect(warned).toEqual([expect.stringContaining('job-2')]);
    expect(warned[0]).toContain(join(runDir, 'late.rejected.jsonl'));
    expect(second.jobs.get('v1')?.attempts[0]?.jobId).toBe('job-1');
    expect(second.jobs.get('v2')?.attempts[0]?.jobId).toBe('job-3');

    const kept = (await readFile(join(runDir, 'late.rejected.jsonl'), 'utf8')).trim().split('\n');
    expect(kept.map((line) => JSON.parse(line) as { jobId: string })).toEqual([
      expect.objectContaining({ id: 'v1', jobId: 'job-2', late: true }),
    ]);

    const third = await openRunState(address());
    const again = late(third.warnings);
    await third.close();
    expect(again).toEqual([]);
    expect(late((await readRunState(address())).replay.warnings)).toEqual([]);
  });

  it('status alone does not set it aside: it warns until an apply opens the run', async () => {
    const first = await openRunState(address());
    await first.journal.append({ type: 'intent', id: 'v1', attempt: 1, payloadHash: 'h' });
    await first.journal.append({ type: 'created', id: 'v1', attempt: 1, jobId: 'job-1' });
    const journalPath = journalPathFor(first.dir);
    await first.close();
    await appendLateRecord(journalPath, { type: 'created', id: 'v1', attempt: 1, jobId: 'job-2', at: 5 });
    expect(late((await readRunState(address())).replay.warnings)).toHaveLength(1);
    expect(late((await readRunState(address())).replay.warnings)).toHaveLength(1);
    const open = await openRunState(address());
    await open.close();
    expect(late(open.warnings)).toHaveLength(1);
    expect(late((await readRunState(address())).replay.warnings)).toEqual([]);
  });
});
