import { describe, it, expect } from 'vitest';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Simulator } from '../../src/simulator/index.js';
import { deriveIdempotencyKey } from '../../src/state/idempotency-key.js';
import { createMemoryUploadCache } from '../../src/state/upload-cache.js';
import { imageJob, useExecutorHarness, videoJob } from './executor-harness.js';
import { getJobKind } from '../../src/kinds/index.js';

const harness = useExecutorHarness('runner-exec-it-');
const { startService, run } = harness;

const creates = (s: Simulator) =>
  (s.stats().requests['POST /agents/jobs/create'] ?? 0) +
  (s.stats().requests['POST /stock-videos/create'] ?? 0);

describe('executePlan against the simulator', () => {
  it('completes 10 image and 2 video jobs with at most 4 running, and downloads every result with its sha256', async () => {
    const { sim, client } = await startService();
    const jobs = [
      ...Array.from({ length: 10 }, (_, i) => imageJob(`img-${i}`, `a red fox, pose ${i}`)),
      videoJob('vid-0', 'the sea'),
      videoJob('vid-1', 'the hills'),
    ];
    const { summary, state, maxOpen } = await run(client, jobs);
    expect(summary.exitReason).toBe('ok');
    expect(summary.counts).toMatchObject({ total: 12, done: 12, failed: 0, pending: 0 });
    const stats = sim.stats();
    expect(stats.jobsCreated).toBe(12);
    expect(stats.maxRunningAtOnce).toBeLessThanOrEqual(4);
    expect(maxOpen).toBeLessThanOrEqual(4);
    expect(maxOpen).toBeGreaterThan(1);
    for (const job of jobs) {
      const jobState = state.get(job.id);
      expect(jobState?.status).toBe('done');
      expect(jobState?.downloads.length).toBe(jobState?.attempts.at(-1)?.resultUrls.length);
      for (const download of jobState?.downloads ?? []) {
        // The journal records the key relative to the output folder (#30.1).
        const bytes = await readFile(join(harness.dir, 'out', download.file));
        expect(bytes.length).toBe(download.bytes);
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(download.sha256);
        expect(download.file.startsWith(job.id)).toBe(true);
      }
    }
    const videoKeys = stats.jobs.filter((job) => job.kind !== 'image').map((job) => job.idempotencyKey);
    expect(videoKeys).toEqual([undefined, undefined]);
  });

  it('retries a GENERATION_TIMEOUT once and never retries PROMPT_UNCLEAR', async () => {
    const { sim, client } = await startService();
    const jobs = [
      imageJob('flaky', 'a sleepy cat on a sofa [[fail-once:GENERATION_TIMEOUT]]'),
      imageJob('vague', 'something [[fail:PROMPT_UNCLEAR]]'),
      imageJob('fine', 'a dog running in the park'),
    ];
    const { summary, events, state } = await run(client, jobs);
    expect(summary.exitReason).toBe('failed');
    expect(summary.counts).toMatchObject({ done: 2, failed: 1 });
    expect(state.get('flaky')?.attempts.map((attempt) => attempt.outcome)).toEqual(['retry', 'done']);
    expect(state.get('vague')?.attempts).toHaveLength(1);
    expect(state.get('vague')?.attempts[0]?.failureKind).toBe('PROMPT_UNCLEAR');
    expect(sim.stats().jobsCreated).toBe(4);
    expect(events.find((event) => event.type === 'job-failed' && event.id === 'vague')).toMatchObject({
      advice: expect.stringMatching(/change the prompt/) as unknown,
    });
    // A second apply sends nothing for the failed job.
    await run(client, jobs);
    expect(sim.stats().jobsCreated).toBe(4);
    expect(creates(sim)).toBe(4);
  });

  it('resumes after a crash between the POST and its journal record with the same key: one job, no second charge', async () => {
    const { sim, client } = await startService({ account: { subscriptionImageQuota: 0, freeCredit: 100 } });
    const job = imageJob('crash', 'a lighthouse in a storm');
    const key = deriveIdempotencyKey({
      pipeline: 'it',
      runId: 'it-run',
      jobId: job.id,
      payloadHash: job.payloadHash,
      attempt: 1,
    });
    // The crashed run: intent journaled and POST sent, answer never journaled.
    await writeFile(
      join(harness.dir, 'journal.jsonl'),
      `${JSON.stringify({ type: 'intent', at: Date.now(), id: job.id, attempt: 1, idempotencyKey: key, payloadHash: job.payloadHash })}\n`,
    );
    const first = await client.createJob({
      endpoint: getJobKind('image'),
      body: { model: job.model, prompt: job.prompt, ...job.params },
      idempotencyKey: key,
    });
    const { summary, state } = await run(client, [job]);
    expect(summary.counts.done).toBe(1);
    const stats = sim.stats();
    expect(stats.jobsCreated).toBe(1);
    expect(stats.idempotentReplays).toBe(1);
    expect(stats.creditsCharged).toBe(4);
    expect(state.get(job.id)?.attempts[0]?.jobId).toBe(first.jobId);
  });

  it('stops creating on HTTP 402 mid-run, lets open jobs finish and loses nothing', async () => {
    const { sim, client } = await startService({ account: { subscriptionImageQuota: 0, freeCredit: 1000 } });
    const jobs = Array.from({ length: 10 }, (_, i) => imageJob(`j${i}`, `a sailing boat at dawn ${i}`));
    let created = 0;
    const { summary, state } = await run(
      client,
      jobs,
      {},
      {
        onEvent: (event) => {
          if (event.type === 'job-created' && ++created === 2)
            sim.setAccount({ freeCredit: 0, purchasedCredit: 0 });
        },
      },
    );
    expect(summary.exitReason).toBe('credits');
    expect(summary.counts.failed).toBe(0);
    expect(summary.counts.done).toBe(sim.stats().jobsCreated);
    expect(summary.counts.done).toBeGreaterThanOrEqual(2);
    expect(summary.counts.done + summary.counts.pending).toBe(10);
    for (const job of jobs) expect(['done', 'pending']).toContain(state.get(job.id)?.status ?? 'pending');
    // Credits back: the pending jobs are created by the next apply, the done ones are not re-sent.
    sim.setAccount({ freeCredit: 1000 });
    const again = await run(client, jobs);
    expect(again.summary.exitReason).toBe('ok');
    expect(sim.stats().jobsCreated).toBe(10);
  });

  it('aborts on HTTP 401 with exit reason auth and a consistent state', async () => {
    const { sim, client } = await startService();
    const jobs = Array.from({ length: 6 }, (_, i) => imageJob(`j${i}`, `an old oak tree in fog ${i}`));
    let created = 0;
    const { summary, state } = await run(
      client,
      jobs,
      {},
      {
        onEvent: (event) => {
          if (event.type === 'job-created' && ++created === 2) sim.revokeApiKey();
        },
      },
    );
    expect(summary.exitReason).toBe('auth');
    const known = new Set(sim.stats().jobs.map((job) => job.jobId));
    for (const jobState of state.values()) {
      const jobId = jobState.attempts.at(-1)?.jobId;
      if (jobId !== undefined) expect(known.has(jobId)).toBe(true);
      expect(['open', 'pending', 'done', 'creating']).toContain(jobState.status);
    }
  });

  it('uploads a local reference image once and sends its public URL with every job using it', async () => {
    const { sim, client } = await startService();
    const bytes = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const path = join(harness.dir, 'logo.png');
    await writeFile(path, bytes);
    const ref = {
      localFile: 'logo.png',
      path,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      contentType: 'image/png',
      bytes: bytes.length,
    };
    const jobs = [0, 1].map((i) => ({
      ...imageJob(`ref-${i}`, `a poster with the logo ${i}`),
      params: { format: 'png', resolution: '1K', referenceImages: [ref] },
    }));
    const { summary, events } = await run(client, jobs);
    expect(summary.counts.done).toBe(2);
    expect(sim.stats().requests['POST /images/presign']).toBe(1);
    expect(
      events
        .filter((event) => event.type === 'uploaded')
        .map((event) => event.type === 'uploaded' && event.cached),
    ).toEqual([false, true]);
  });

  it('forgets an uploaded reference the service refuses, and uploads it afresh when the job is re-sent', async () => {
    const { sim, client } = await startService();
    const bytes = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const path = join(harness.dir, 'logo.png');
    await writeFile(path, bytes);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const ref = { localFile: 'logo.png', path, sha256, contentType: 'image/png', bytes: bytes.length };
    // An earlier run's upload that the service no longer serves (results and uploads expire).
    const cache = createMemoryUploadCache({
      [sha256]: `${sim.baseUrl.replace(/\/api\/v2$/, '')}/__files/gone/logo.png`,
    });
    const job = {
      ...imageJob('ref-stale', 'a poster with the old logo printed on it'),
      params: { format: 'png', resolution: '1K', referenceImages: [ref] },
    };

    const first = await run(client, [job], {}, { uploadCache: cache });
    expect(first.summary.counts.failed).toBe(1);
    expect(sim.stats().jobsCreated).toBe(0);
    expect(cache.get(sha256)).toBeUndefined();

    const second = await run(client, [job], { retryFailed: true }, { uploadCache: cache });
    expect(second.summary.counts.done).toBe(1);
    expect(sim.stats().requests['POST /images/presign']).toBe(1);
    expect(sim.stats().jobsCreated).toBe(1);
  });
});
