import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setAsideSuperseded } from '../../../src/execute/set-aside-superseded.js';
import { createFolderResultsStore } from '../../../src/results/backends/folder/folder-results-store.js';
import { createResultFiles } from '../../../src/results/result-files.js';
import type { PlannedJob } from '../../../src/manifest/planned-job.js';
import type { JobState } from '../../../src/state/job-state.js';
import { replayJournal } from '../../../src/state/replay.js';
import { buildStatusView } from '../../../src/state/status-view.js';
import { createExecutorHarness, makePlan, plannedJob } from './executor-harness.js';
import { useTempDir } from '../../temp-dir.js';

const tmp = useTempDir('runner-superseded-');

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const imageJob = (prompt: string) => plannedJob('a', prompt);

describe('a job run again replaces its files (#7.4)', () => {
  it('moves the files of the replaced attempt aside (incl. +2) and status shows only the new ones', async () => {
    const h = createExecutorHarness(tmp.path);
    const { service, journalPath } = h;
    // The second job of the service makes one result only: the first attempt's `a+2.png` would go stale.
    const getJob = service.client.getJob.bind(service.client);
    service.client.getJob = async (jobId, options) => {
      const record = await getJob(jobId, options);
      return jobId === 'J2' ? { ...record, resultUrls: record.resultUrls.slice(0, 1) } : record;
    };
    const outputDir = join(tmp.path, 'out');
    const apply = (job: PlannedJob, retryFailed = false) => h.run(makePlan([job]), { retryFailed });

    await apply(imageJob('a red fox'));
    expect(await readFile(join(outputDir, 'a.png'), 'utf8')).toBe('https://results.test/J1.png');
    expect(existsSync(join(outputDir, 'a+2.png'))).toBe(true);

    const changed = await apply(imageJob('a blue fox'));
    expect(changed.counts.done).toBe(1);
    expect(await readFile(join(outputDir, 'a.png'), 'utf8')).toBe('https://results.test/J2.png');
    expect(existsSync(join(outputDir, 'a+2.png'))).toBe(false);
    const aside = join(outputDir, '.superseded', 'attempt-1');
    expect(await readFile(join(aside, 'a.png'), 'utf8')).toBe('https://results.test/J1.png');
    expect(await readFile(join(aside, 'a+2.png'), 'utf8')).toBe('https://results.test/J1-b');

    const view = buildStatusView(replayJournal(await readFile(journalPath, 'utf8')).jobs);
    expect(view.jobs[0]?.files).toEqual([
      // Recorded by its key relative to the output folder (#30.1), so any machine finds it.
      { file: 'a.png', bytes: 27, sha256: sha256('https://results.test/J2.png') },
    ]);

    // A third apply of the same job moves nothing: the current file is not an old attempt's.
    await apply(imageJob('a blue fox'));
    expect(await readFile(join(outputDir, 'a.png'), 'utf8')).toBe('https://results.test/J2.png');
  });
});

describe('setAsideSuperseded never moves through a link (#24.9)', () => {
  it('refuses a .superseded that is a symbolic link, leaving the file where it was', async () => {
    const out = join(tmp.path, 'out');
    const elsewhere = join(tmp.path, 'elsewhere');
    await mkdir(out);
    await mkdir(elsewhere);
    await symlink(elsewhere, join(out, '.superseded'));
    const file = join(out, 'a.png');
    await writeFile(file, 'old result');
    const state = {
      id: 'a',
      payloadHash: 'h',
      attempts: [],
      downloads: [],
      status: 'done',
      superseded: [{ url: 'u', file, bytes: 10, sha256: sha256('old result'), at: 0, attempt: 1 }],
    } as unknown as JobState;
    const results = createResultFiles(createFolderResultsStore(out), out);
    await expect(setAsideSuperseded(state, results)).rejects.toThrow(/\.superseded is a symbolic link/);
    expect(await readFile(file, 'utf8')).toBe('old result');
    expect(await readdir(elsewhere)).toEqual([]);
  });
});
