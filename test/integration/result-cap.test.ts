import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_LINE_BYTES, MAX_RESULTS_PER_JOB } from '../../src/state/journal-format.js';
import { openJournal } from '../../src/state/backends/folder/journal.js';
import { imageJob, useExecutorHarness } from './executor-harness.js';

const harness = useExecutorHarness('runner-result-cap-');

/** Issue #24.9: a job with thousands of result URLs wrote a 2.9 MB journal line its reader then refused. */
describe("results per job are capped, and writer and reader agree on a line's size", () => {
  it('flags a job with 3,000 results as uncertain, its job id kept, and writes no line the reader skips', async () => {
    const { sim, client } = await harness.startService();
    const job = imageJob('many', 'a red fox in the snow, every angle [[images:3000]]');
    const { summary, events, state } = await harness.run(client, [job]);
    expect(summary.counts).toMatchObject({ done: 0, uncertain: 1 });
    const flagged = events.find((event) => event.type === 'job-uncertain');
    expect(flagged).toMatchObject({ id: 'many' });
    expect(flagged && 'reason' in flagged ? flagged.reason : '').toMatch(
      new RegExp(`3000 result URLs, more than the ${MAX_RESULTS_PER_JOB} the runner keeps for one job`),
    );
    const jobState = state.get('many');
    expect(jobState?.status).toBe('uncertain');
    expect(jobState?.attempts.at(-1)?.jobId).toBe(sim.stats().jobs[0]?.jobId);
    expect(jobState?.downloads).toEqual([]);
    const lines = (await readFile(join(harness.dir, 'journal.jsonl'), 'utf8')).split('\n');
    expect(Math.max(...lines.map((line) => Buffer.byteLength(line)))).toBeLessThan(MAX_LINE_BYTES);

    // A later apply flags it again and creates nothing.
    const again = await harness.run(client, [job]);
    expect(again.summary.counts.uncertain).toBe(1);
    expect(sim.stats().jobsCreated).toBe(1);
  });

  it('refuses to write a record longer than a journal line may be, and writes nothing of it', async () => {
    const path = join(harness.dir, 'journal.jsonl');
    const journal = await openJournal(path);
    try {
      await expect(
        journal.append({ type: 'uncertain', id: 'j', attempt: 1, reason: 'x'.repeat(10) }),
      ).resolves.toBeDefined();
      const urls = Array.from({ length: 200 }, (_, index) => `https://r.test/${index}/${'u'.repeat(8000)}`);
      await expect(
        journal.append({ type: 'completed', id: 'j', attempt: 1, resultUrls: urls }),
      ).rejects.toThrow(/a completed record of job j is \d+ bytes, over the 1048576 a journal line may hold/);
    } finally {
      await journal.close();
    }
    expect((await readFile(path, 'utf8')).includes('r.test')).toBe(false);
  });
});
