import { createHash } from 'node:crypto';
import { open, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { ExecutionEvent } from '../../src/execute/events.js';
import { executePlan } from '../../src/execute/executor.js';
import { createServiceClient } from '../../src/service/client.js';
import { createFolderResultsStore } from '../../src/results/backends/folder/folder-results-store.js';
import type { OpenResultFile } from '../../src/results/backends/folder/write-atomically.js';
import { createResultFiles } from '../../src/results/result-files.js';
import type { ServiceClient } from '../../src/service/service-client.js';
import { openJournal } from '../../src/state/backends/folder/journal.js';
import { replayJournal } from '../../src/state/replay.js';
import { testRun } from '../run-state.js';
import { imageJob, useExecutorHarness } from './executor-harness.js';

/** Results that cannot be saved (#24.3, #24.7) and results owed after an interrupt (#20.8), over real HTTP. */

const harness = useExecutorHarness('runner-exec-downloads-');
const { startService, run } = harness;

const PROMPT = 'A lighthouse on a cliff at dawn, watercolor';
const jobs = (count: number) =>
  Array.from({ length: count }, (_, i) => imageJob(`j${i}`, `${PROMPT} [[one-image]] number ${i}`));
const warnings = (events: ExecutionEvent[]) =>
  events.flatMap((event) => (event.type === 'warning' ? [event.message] : []));

/**
 * A disk with `room.bytes` free for result files: the write that reaches the end is short (as
 * write(2) is), the next fails with ENOSPC. Raise `room.bytes` to free space.
 */
function fillingDisk(room: { bytes: number }): OpenResultFile {
  return async (path) => {
    const handle = await open(path, 'wx');
    return {
      async write(data, offset, length) {
        const count = Math.min(room.bytes, length);
        if (count <= 0)
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        const { bytesWritten } = await handle.write(data, offset, count);
        room.bytes -= bytesWritten;
        return bytesWritten;
      },
      sync: () => handle.sync(),
      size: async () => (await handle.stat()).size,
      close: () => handle.close(),
    };
  };
}

async function filesIn(folder: string): Promise<string[]> {
  return (await readdir(folder).catch(() => [] as string[])).sort();
}

describe('a full disk (#24.3)', () => {
  it('records no cut file, names the folder, stops creating, and fetches the result again on resume', async () => {
    const { sim } = await startService();
    const room = { bytes: Number.MAX_SAFE_INTEGER };
    const client = createServiceClient({
      baseUrl: sim.baseUrl,
      apiKey: sim.apiKey,
      retry: { maxRetries: 0 },
    });
    const results = createResultFiles(
      createFolderResultsStore(join(harness.dir, 'out'), { openFile: fillingDisk(room) }),
      undefined,
    );
    try {
      // Room for the first result and part of the second: one at a time, so the order is known.
      const first = await run(client, jobs(4).slice(0, 1), { concurrency: 1 }, { results });
      const size = (await readFile(join(harness.dir, 'out', 'j0.png'))).length;
      room.bytes = Math.floor(size / 2);
      const cut = await run(client, jobs(4), { concurrency: 1 }, { results });
      expect(first.summary.counts.done).toBe(1);
      // j2 may be created while j1 downloads (its slot is free by then); j3 never is.
      const created = sim.stats().jobsCreated;
      expect(created).toBeGreaterThanOrEqual(2);
      expect(created).toBeLessThanOrEqual(3);
      expect(cut.summary.jobs.find((job) => job.id === 'j3')?.outcome).toBe('pending');
      expect(cut.summary.counts.done).toBe(1);
      expect(cut.summary.counts.downloading).toBe(created - 1);
      expect(cut.summary.exitReason).toBe('failed');
      const outDir = join(harness.dir, 'out');
      expect(warnings(cut.events)).toContainEqual(
        expect.stringContaining(`the disk holding ${outDir} is full (ENOSPC); the partial file was removed`),
      );
      expect(cut.events).toContainEqual(
        expect.objectContaining({ type: 'stopped-creating', reason: 'error' }),
      );
      expect(await filesIn(outDir)).toEqual(['j0.png']);
      expect(cut.state.get('j1')?.status).toBe('done');
      expect(cut.state.get('j1')?.downloads).toEqual([]);
      expect(cut.summary.jobs.find((job) => job.id === 'j1')?.error).toBe(
        `result not saved: the disk holding ${outDir} is full (ENOSPC)`,
      );

      room.bytes = Number.MAX_SAFE_INTEGER;
      const resumed = await run(client, jobs(4), { concurrency: 1 }, { results });
      expect(resumed.summary.counts).toMatchObject({ done: 4, downloading: 0, downloadFailures: 0 });
      expect(sim.stats().jobsCreated).toBe(4);
      expect(await filesIn(outDir)).toEqual(['j0.png', 'j1.png', 'j2.png', 'j3.png']);
      for (const [id, state] of resumed.state) {
        const [download] = state.downloads;
        // The journal records the key relative to the output folder (#30.1).
        const bytes = await readFile(join(outDir, download?.file ?? ''));
        expect({ id, bytes: download?.bytes, sha256: download?.sha256 }).toEqual({
          id,
          bytes: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
        });
      }
    } finally {
      await client.close();
    }
  });

  it('a body cut short is never recorded and leaves no file', async () => {
    const { client } = await startService({ hostile: { truncateDownloadBytes: 100 } });
    const result = await run(client, jobs(1));
    expect(result.summary.counts).toMatchObject({ done: 0, downloading: 1, downloadFailures: 1 });
    expect(result.state.get('j0')?.downloads).toEqual([]);
    expect(await filesIn(join(harness.dir, 'out'))).toEqual([]);
  });

  it('a download the journal cannot record stops new creates', async () => {
    const { sim, client } = await startService();
    const journalPath = join(harness.dir, 'journal.jsonl');
    const journal = await openJournal(journalPath);
    const events: ExecutionEvent[] = [];
    try {
      const summary = await executePlan(
        { pipeline: 'it', manifestFile: join(harness.dir, 'm.yaml'), jobs: jobs(3), warnings: [] },
        {
          client,
          run: testRun({
            journal: {
              path: journalPath,
              close: () => Promise.resolve(),
              append: (entry) =>
                entry.type === 'downloaded'
                  ? Promise.reject(
                      Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }),
                    )
                  : journal.append(entry),
            },
          }),
          clock: systemClock,
          signal: new AbortController().signal,
          onEvent: (event) => events.push(event),
        },
        {
          runId: 'it-run',
          concurrency: 1,
          pollIntervalMs: [10, 30],
          firstPollAfterMs: 20,
          download: true,
          outputDir: join(harness.dir, 'out'),
        },
      );
      // The second job may be created while the first downloads; none after the failed append.
      expect(sim.stats().jobsCreated).toBeLessThan(3);
      expect(summary.counts.downloading).toBe(sim.stats().jobsCreated);
      expect(summary.jobs.find((job) => job.id === 'j2')?.outcome).toBe('pending');
      expect(events).toContainEqual(
        expect.objectContaining({
          type: 'stopped-creating',
          reason: 'error',
          message: expect.stringContaining('the state journal could not be written') as unknown,
        }),
      );
    } finally {
      await journal.close();
    }
    const state = replayJournal(await readFile(journalPath, 'utf8')).jobs;
    expect(state.get('j0')?.downloads).toEqual([]);
  });
});

describe('a result link on the API origin (#24.7)', () => {
  it('is fetched without the key (the API refuses it), nothing is saved, and the job is not done', async () => {
    const { sim, client } = await startService({ hostile: { resultsOnApi: 1 } });
    const result = await run(client, jobs(2));
    expect(sim.stats().resultRequestsWithKey).toBe(0);
    expect(sim.stats().requests['GET /account/balance']).toBeGreaterThanOrEqual(2);
    expect(await filesIn(join(harness.dir, 'out'))).toEqual([]);
    expect(result.summary.counts).toMatchObject({ done: 0, downloading: 2, downloadFailures: 2 });
    expect(result.summary.exitReason).toBe('failed');
    expect(warnings(result.events)).toContainEqual(
      expect.stringMatching(
        /^Downloading result 1 of job j0 failed: GET 127\.0\.0\.1:\d+\/api\/v2\/account\/balance failed: HTTP 401 Unauthorized; the job is paid and its result is owed/,
      ),
    );
    expect(JSON.stringify(result.events)).not.toContain('legacy-');
    expect(result.summary.jobs[0]).toMatchObject({
      outcome: 'downloading',
      error: expect.stringMatching(
        /^result not saved: GET 127\.0\.0\.1:\d+\/api\/v2\/account\/balance failed: HTTP 401/,
      ) as unknown,
    });
  });
});

describe('results owed after an interrupt (#20.8)', () => {
  async function interruptedRun(client: ServiceClient) {
    const controller = new AbortController();
    return run(
      client,
      jobs(2).slice(0, 1),
      {},
      {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'job-completed') controller.abort(new Error('SIGINT'));
        },
      },
    );
  }

  it('--download-only fetches them, creates nothing and says which jobs it skipped', async () => {
    const { sim, client } = await startService();
    const first = await interruptedRun(client);
    expect(first.summary.counts).toMatchObject({ done: 0, downloading: 1 });
    expect(sim.stats().jobsCreated).toBe(1);

    const fetched = await run(client, jobs(2), { downloadOnly: true });
    expect(sim.stats().jobsCreated).toBe(1);
    expect(fetched.summary.counts).toMatchObject({ done: 1, pending: 1, downloading: 0 });
    expect(fetched.state.get('j0')?.downloads).toHaveLength(1);
    expect(fetched.events).toContainEqual(
      expect.objectContaining({ type: 'job-skipped', id: 'j0', reason: 'done', owed: 1 }),
    );
    expect(fetched.events.some((event) => event.type === 'job-created')).toBe(false);
    expect(await filesIn(join(harness.dir, 'out'))).toEqual(['j0.png']);
  });

  it('a full apply says the done job is being downloaded, not that it was done earlier', async () => {
    const { client } = await startService();
    await interruptedRun(client);
    const resumed = await run(client, jobs(1));
    const skip = resumed.events.find((event) => event.type === 'job-skipped');
    expect(skip).toMatchObject({ id: 'j0', owed: 1 });
    expect(skip?.type === 'job-skipped' ? skip.detail : '').toMatch(
      /1 result\(s\) not saved yet, downloading$/,
    );
    expect(resumed.summary.counts.done).toBe(1);
  });
});

describe('after each saved result (thumbnails, #19.4)', () => {
  it('is told of each file with the hash the journal records, and its failure is a warning, never a lost result', async () => {
    const { sim, client } = await startService();
    const told: { id: string; file: string; sha256: string }[] = [];
    const { summary, events, state } = await run(
      client,
      jobs(2),
      {},
      {
        afterDownload: (saved) => {
          told.push({ id: saved.id, file: saved.file, sha256: saved.sha256 });
          return saved.id === 'j1'
            ? Promise.reject(new Error('the thumbnail folder is a symbolic link'))
            : Promise.resolve();
        },
      },
    );
    expect(summary.counts.done).toBe(2);
    expect(sim.stats().jobsCreated).toBe(2);
    const recorded = [...state.values()].flatMap((job) =>
      job.downloads.map((download) => ({
        id: job.id,
        file: join(harness.dir, 'out', download.file),
        sha256: download.sha256,
      })),
    );
    expect(told.sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      recorded.sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(warnings(events)).toEqual([
      `No thumbnail for ${join(harness.dir, 'out', 'j1.png')}: the thumbnail folder is a symbolic link (the report shows the file itself).`,
    ]);
  });
});
