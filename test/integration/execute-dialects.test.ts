import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { imageJob, useExecutorHarness } from './executor-harness.js';

/** The executor against the simulator's dialects and hostile answers (issues #7, #11) over real HTTP. */

const harness = useExecutorHarness('runner-exec-dialect-');
const { startService, run } = harness;

const PROMPT = 'A lighthouse on a cliff at dawn, watercolor';

describe('a complete job without a result the runner recognises (#7.9)', () => {
  it('is uncertain with its job id kept and the fields named, and is never created again', async () => {
    const { sim, client } = await startService({ dialect: { results: 'none' } });
    const first = await run(client, [imageJob('a', PROMPT)]);
    expect(first.summary.counts.uncertain).toBe(1);
    expect(first.summary.counts.done).toBe(0);
    const jobId = first.summary.jobs[0]?.jobId;
    expect(jobId).toMatch(/^job_/);
    const uncertain = first.events.find((event) => event.type === 'job-uncertain');
    expect(uncertain).toMatchObject({ action: 'skipped' });
    expect(uncertain?.type === 'job-uncertain' ? uncertain.reason : '').toMatch(
      new RegExp(
        `job ${jobId ?? ''} "complete" but names no result the runner recognises \\(looked in resultImages, resultUrls, resultUrl, resultImage\\); the answer had: jobId "${jobId ?? ''}", status "complete", .*output \\{"note":"stored elsewhere"\\}`,
      ),
    );
    expect(first.state.get('a')?.status).toBe('uncertain');
    expect(first.state.get('a')?.attempts.at(-1)?.jobId).toBe(jobId);

    // Even when uncertain creates may be re-sent, a job the service made is followed, not paid again.
    const second = await run(client, [imageJob('a', PROMPT)], { onUncertain: 'resend' });
    expect(second.summary.counts.uncertain).toBe(1);
    expect(sim.stats().jobsCreated).toBe(1);
  });

  it('is done when the result is only in resultImage, with numbers as strings', async () => {
    const { client } = await startService({ dialect: { results: 'result-image', numbersAsStrings: true } });
    const result = await run(client, [imageJob('a', PROMPT)]);
    expect(result.summary.counts.done).toBe(1);
    expect(result.summary.jobs[0]?.files).toHaveLength(1);
  });

  it('shows failure text sent in errorMessage for a "cancelled" job', async () => {
    const { client } = await startService({
      dialect: { failureText: 'errorMessage', failedStatus: 'cancelled' },
    });
    const result = await run(client, [imageJob('a', `${PROMPT} [[fail:CONTENT_REJECTED]]`)]);
    expect(result.summary.counts.failed).toBe(1);
    expect(result.events.find((event) => event.type === 'job-failed')).toMatchObject({
      failureKind: 'CONTENT_REJECTED',
      message: 'The request was rejected by the content policy.',
    });
  });
});

describe('the starting concurrency (#7.12)', () => {
  it('starts at the subscription maxConcurrentJobs, so even the first wave stays below it', async () => {
    const { sim, client } = await startService({ dialect: { maxConcurrentJobs: 2 } });
    const jobs = Array.from({ length: 6 }, (_, i) => imageJob(`j${i}`, `${PROMPT} number ${i}`));
    const result = await run(client, jobs);
    expect(result.summary.counts.done).toBe(6);
    expect(sim.stats().maxOpenAtOnce).toBe(2);
    expect(result.events.find((event) => event.type === 'concurrency-changed')).toEqual({
      type: 'concurrency-changed',
      from: 4,
      to: 2,
      reason: 'the subscription allows 2 jobs at once (maxConcurrentJobs)',
    });
  });

  it('never goes above --concurrency even when the subscription allows more', async () => {
    const { sim, client } = await startService({ dialect: { maxConcurrentJobs: 3 } });
    const jobs = Array.from({ length: 4 }, (_, i) => imageJob(`j${i}`, `${PROMPT} number ${i}`));
    await run(client, jobs, { concurrency: 1 });
    expect(sim.stats().maxOpenAtOnce).toBe(1);
  });

  it.each(['missing', 'odd'] as const)(
    'falls back to 4 with a note when the subscription is %s',
    async (kind) => {
      // Jobs of 400 ms: all five creates happen while the first four still run.
      const { sim, client } = await startService({
        dialect: { subscription: kind },
        jobDurationMs: { image: 200_000 },
      });
      const jobs = Array.from({ length: 5 }, (_, i) => imageJob(`j${i}`, `${PROMPT} number ${i}`));
      const result = await run(client, jobs);
      expect(result.summary.counts.done).toBe(5);
      expect(sim.stats().maxOpenAtOnce).toBe(4);
      const notes = result.events.filter((event) => event.type === 'warning').map((event) => event.message);
      expect(notes).toEqual([
        kind === 'missing'
          ? 'The service has no subscription endpoint (GET /account/subscription): starting with 4 jobs at once.'
          : 'The subscription does not report a usable maxConcurrentJobs: starting with 4 jobs at once.',
      ]);
    },
  );
});

describe('deadlines against slow answers (#11.6)', () => {
  it('a drip-fed poll answer does not hold the job past its deadline', async () => {
    // A poll answer of ~250 bytes at one byte per 200 ms would take ~50 s.
    const { client } = await startService({ hostile: { dripPollMs: 200 } });
    const result = await run(client, [imageJob('a', PROMPT)], { jobDeadlineMs: 300 });
    expect(result.summary.counts['still-running']).toBe(1);
    expect(result.state.get('a')?.status).toBe('open');
    expect(result.summary.jobs[0]?.jobId).toMatch(/^job_/);
  });

  it('Ctrl-C stops a drip-fed download, removes the partial file and keeps the result URL', async () => {
    const { client } = await startService({ hostile: { dripDownloadMs: 20 } });
    const controller = new AbortController();
    const result = await run(
      client,
      [imageJob('a', PROMPT)],
      {},
      {
        signal: controller.signal,
        onEvent: (event) => {
          if (event.type === 'job-completed') setTimeout(() => controller.abort(new Error('SIGINT')), 100);
        },
      },
    );
    // Paid but its result not saved: not done (#24.3).
    expect(result.summary.counts.done).toBe(0);
    expect(result.summary.counts.downloading).toBe(1);
    expect(result.summary.counts.downloadFailures).toBe(1);
    expect(result.summary.exitReason).toBe('interrupted');
    // Nothing left of the partial file; the folder itself is made only when a result is stored (1d22c1b).
    expect(await readdir(join(harness.dir, 'out')).catch(() => [])).toEqual([]);
    expect(result.state.get('a')?.attempts.at(-1)?.resultUrls).toHaveLength(1);
    expect(result.state.get('a')?.downloads).toEqual([]);
    expect(
      result.events.some(
        (event) => event.type === 'warning' && event.message.includes('stopped by the interrupt'),
      ),
    ).toBe(true);
  });
});
