import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { executePlan } from '../../../src/execute/executor.js';
import type { Plan, PlannedJob } from '../../../src/plan/types.js';
import { openJournal } from '../../../src/state/journal.js';
import { replayJournal } from '../../../src/state/replay.js';
import { buildStatusView } from '../../../src/state/status-view.js';
import { createMemoryUploadCache } from '../../../src/state/upload-cache.js';
import { createFakeClock, createFakeService } from './fake-service.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'runner-superseded-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function imageJob(prompt: string): PlannedJob {
  return {
    id: 'a',
    kind: 'image',
    model: 'chatgpt-image-sangtao',
    prompt,
    params: {},
    estimatedCredits: 1,
    payloadHash: `hash-${prompt}`,
    source: { matrixValues: {}, specIndex: 0, origins: {} } as unknown as PlannedJob['source'],
  };
}

describe('a job run again replaces its files (#7.4)', () => {
  it('moves the files of the replaced attempt aside (incl. +2) and status shows only the new ones', async () => {
    const service = createFakeService();
    // Real hashes, so the runner can tell its own recorded files from others.
    service.client.downloadFile = async (url, destinationPath) => {
      await writeFile(destinationPath, url);
      return { bytes: Buffer.byteLength(url), sha256: sha256(url) };
    };
    // The second job of the service makes one result only: the first attempt's `a+2.png` would go stale.
    const getJob = service.client.getJob.bind(service.client);
    service.client.getJob = async (jobId, options) => {
      const record = await getJob(jobId, options);
      return jobId === 'J2' ? { ...record, resultUrls: record.resultUrls.slice(0, 1) } : record;
    };
    const clock = createFakeClock();
    const journalPath = join(dir, 'journal.jsonl');
    const outputDir = join(dir, 'out');
    const apply = async (job: PlannedJob, retryFailed = false) => {
      const plan: Plan = { pipeline: 'pipe', manifestFile: 'm.yaml', jobs: [job], warnings: [] };
      const journal = await openJournal(journalPath, { clock });
      try {
        return await executePlan(
          plan,
          {
            client: service.client,
            journal,
            state: replayJournal(await readFile(journalPath, 'utf8').catch(() => '')).jobs,
            clock,
            random: () => 0.5,
            uploadCache: createMemoryUploadCache(),
            onEvent: () => undefined,
            signal: new AbortController().signal,
          },
          {
            runId: 'r',
            pollIntervalMs: [10, 20],
            firstPollAfterMs: 5,
            download: true,
            outputDir,
            retryFailed,
          },
        );
      } finally {
        await journal.close();
      }
    };

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
      { file: join(outputDir, 'a.png'), bytes: 27, sha256: sha256('https://results.test/J2.png') },
    ]);

    // A third apply of the same job moves nothing: the current file is not an old attempt's.
    await apply(imageJob('a blue fox'));
    expect(await readFile(join(outputDir, 'a.png'), 'utf8')).toBe('https://results.test/J2.png');
  });
});
