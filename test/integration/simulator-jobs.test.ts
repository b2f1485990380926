import { inflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { FAILURE_KINDS } from '../../src/service/types.js';
import {
  closeHarnesses,
  IMAGE_MODEL,
  LONG_PROMPT,
  startHarness,
  type SimHarness,
} from './simulator-helpers.js';

afterEach(closeHarnesses);

const createImage = (h: SimHarness, body: Record<string, unknown> = {}) =>
  h.api('POST', '/agents/jobs/create', { model: IMAGE_MODEL, prompt: LONG_PROMPT, ...body });

describe('simulator: lifecycle and concurrency', () => {
  it('runs at most 4 jobs across endpoints and queues the rest FIFO', async () => {
    const h = await startHarness({ fakeClock: true, timeScale: 1 });
    const created = [
      await createImage(h),
      await h.api('POST', '/render/video', { model: 'render-compose', media: ['https://example.com/a.mp4'] }),
      await createImage(h),
      await h.api('POST', '/article-videos/create', {
        model: 'article-to-video',
        articleUrl: 'https://example.com/post',
      }),
      await createImage(h),
      await h.api('POST', '/slideshow-videos/create', {
        model: 'slideshow-classic',
        images: ['https://example.com/1.jpg'],
      }),
    ].map((r) => r.json.data);
    expect(created.map((d) => d.queuePosition)).toEqual([0, 0, 0, 0, 1, 2]);
    expect(created[5]).toMatchObject({
      queueDepth: 2,
      runningJobs: 4,
      concurrency: 4,
      capReason: 'plan limit',
      runningOnFallback: null,
    });
    h.tick(20_000);
    const running = (await h.api('GET', `/jobs/${created[0]!.jobId}`)).json.data;
    expect(running).toMatchObject({ status: 'Processing', progress: 44 });
    expect((await h.api('GET', `/jobs/${created[4]!.jobId}`)).json.data.status).toBe('WaitingForAgent');
    h.tick(25_000); // the three images (45 s) end; both queued jobs start
    expect((await h.api('GET', `/jobs/${created[0]!.jobId}`)).json.data.status).toBe('complete');
    expect((await h.api('GET', `/jobs/${created[4]!.jobId}`)).json.data).toMatchObject({
      status: 'Processing',
      progress: 0,
    });
    expect((await h.api('GET', `/jobs/${created[5]!.jobId}`)).json.data.status).toBe('Processing');
    expect(h.sim.stats().maxRunningAtOnce).toBe(4);
  });

  it('answers 429 AGENT_QUEUE_FULL with Retry-After beyond maxQueueDepth', async () => {
    const h = await startHarness({ fakeClock: true, maxQueueDepth: 1 });
    for (let i = 0; i < 5; i++) expect((await createImage(h)).status).toBe(200);
    const full = await createImage(h);
    expect(full.status).toBe(429);
    expect(full.json).toMatchObject({ success: false, errorCode: 'AGENT_QUEUE_FULL' });
    expect(full.headers['retry-after']).toBe('1');
    expect(h.sim.stats().jobsCreated).toBe(5);
  });

  it('completes with downloadable results in the requested format; [[two-images]] yields two', async () => {
    const h = await startHarness();
    const png = await h.waitForEnd(
      (await createImage(h, { prompt: `${LONG_PROMPT} [[two-images]]` })).json.data.jobId,
    );
    expect(png.resultImages).toHaveLength(2);
    expect(png.resultUrl).toBe(png.resultImages[0]!);
    const first = await h.raw('GET', png.resultImages[0]!);
    const second = await h.raw('GET', png.resultImages[1]!);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('image/png');
    expect(first.bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(first.bytes.equals(second.bytes)).toBe(false);
    const jpeg = await h.waitForEnd((await createImage(h, { format: 'jpeg' })).json.data.jobId);
    const jpegBytes = await h.raw('GET', jpeg.resultUrl);
    expect(jpegBytes.headers['content-type']).toBe('image/jpeg');
    expect([...jpegBytes.bytes.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect((await h.raw('GET', `${new URL(h.sim.baseUrl).origin}/__results/nope/1.png`)).status).toBe(404);
  });

  it('draws a regenerated prompt anew: a second job of one prompt has other pixels (#33.16)', async () => {
    const h = await startHarness();
    const pixelsOf = (png: Buffer) => {
      const idat = png.indexOf('IDAT');
      return inflateSync(png.subarray(idat + 4, idat + 4 + png.readUInt32BE(idat - 4)));
    };
    const first = await h.waitForEnd((await createImage(h)).json.data.jobId);
    const again = await h.waitForEnd((await createImage(h)).json.data.jobId);
    const other = await h.waitForEnd(
      (await createImage(h, { prompt: `${LONG_PROMPT}, at dusk` })).json.data.jobId,
    );
    const [a, b, c] = await Promise.all(
      [first, again, other].map(async (job) => pixelsOf((await h.raw('GET', job.resultUrl)).bytes)),
    );
    expect(a!.equals(b!)).toBe(false);
    expect(a!.equals(c!)).toBe(false);
  });

  it('yields two images for about one job in ten, deterministically for a seed', async () => {
    const counts = async (seed: number) => {
      const h = await startHarness({ fakeClock: true, seed, account: { subscriptionImageQuota: 100 } });
      const ids = [];
      for (let i = 0; i < 40; i++) ids.push((await createImage(h)).json.data.jobId);
      h.tick(1_000_000);
      const out = [];
      for (const id of ids) out.push((await h.api('GET', `/jobs/${id}`)).json.data.resultImages.length);
      return out;
    };
    const a = await counts(3);
    expect(await counts(3)).toEqual(a);
    const twos = a.filter((n) => n === 2).length;
    expect(twos).toBeGreaterThan(0);
    expect(twos).toBeLessThan(15);
  });
});

describe('simulator: failures', () => {
  it('fails with each failureKind of spec 7.3 via [[fail:KIND]], partway through', async () => {
    const h = await startHarness({ fakeClock: true, timeScale: 1, account: { subscriptionImageQuota: 100 } });
    for (const kind of FAILURE_KINDS) {
      const { jobId } = (await createImage(h, { prompt: `${LONG_PROMPT} [[fail:${kind}]]` })).json.data;
      h.tick(45_000 * 0.71);
      const end = (await h.api('GET', `/jobs/${jobId}`)).json.data;
      expect(end).toMatchObject({ status: 'error', failureKind: kind, resultUrl: null });
      expect(typeof end.error).toBe('string');
    }
  });

  it('fails short prompts with PROMPT_UNCLEAR and [[no-alpha]] transparency with TRANSPARENT_CREATION_FAILED', async () => {
    const h = await startHarness({ fakeClock: true });
    const short = await h.waitForEnd((await createImage(h, { prompt: 'a cat' })).json.data.jobId);
    expect(short.failureKind).toBe('PROMPT_UNCLEAR');
    const alpha = await createImage(h, { prompt: `${LONG_PROMPT} [[no-alpha]]`, requireTransparent: true });
    expect((await h.waitForEnd(alpha.json.data.jobId)).failureKind).toBe('TRANSPARENT_CREATION_FAILED');
    const opaque = await createImage(h, { prompt: `${LONG_PROMPT} [[no-alpha]]` });
    expect((await h.waitForEnd(opaque.json.data.jobId)).status).toBe('complete');
  });

  it('fails only the first job of a [[fail-once:KIND]] prompt', async () => {
    const h = await startHarness({ fakeClock: true });
    const prompt = `${LONG_PROMPT} [[fail-once:GENERATION_TIMEOUT]]`;
    const first = await h.waitForEnd((await createImage(h, { prompt })).json.data.jobId);
    const retry = await h.waitForEnd((await createImage(h, { prompt })).json.data.jobId);
    expect(first).toMatchObject({ status: 'error', failureKind: 'GENERATION_TIMEOUT' });
    expect(retry.status).toBe('complete');
  });

  it('reports the literal status of [[status:X]] while running', async () => {
    const h = await startHarness({ fakeClock: true, timeScale: 1 });
    const { jobId } = (await createImage(h, { prompt: `${LONG_PROMPT} [[status:Rendering]]` })).json.data;
    h.tick(1_000);
    expect((await h.api('GET', `/jobs/${jobId}`)).json.data.status).toBe('Rendering');
    h.tick(60_000);
    expect((await h.api('GET', `/jobs/${jobId}`)).json.data.status).toBe('complete');
  });
});

describe('simulator: references and uploads', () => {
  it('refuses unfetchable references with 400 REFERENCE_UNREACHABLE, creating and charging nothing', async () => {
    const h = await startHarness({ account: { subscriptionImageQuota: 0 } });
    const origin = new URL(h.sim.baseUrl).origin;
    const before = (await h.api('GET', '/account/balance')).json.data;
    for (const link of [
      'https://unreachable.example.com/a.png',
      'https://cdn.blocked.example/b.png',
      `${origin}/__files/nope/x.png`,
    ]) {
      const refused = await createImage(h, { referenceImages: ['https://example.com/ok.png', link] });
      expect(refused.status).toBe(400);
      expect(refused.json.errorCode).toBe('REFERENCE_UNREACHABLE');
    }
    const refusedVideo = await h.api('POST', '/render/video', {
      model: 'render-compose',
      media: ['https://blocked.example/v.mp4'],
    });
    expect(refusedVideo.json.errorCode).toBe('REFERENCE_UNREACHABLE');
    expect((await h.api('GET', '/account/balance')).json.data).toEqual(before);
    expect(h.sim.stats().jobsCreated).toBe(0);
  });

  it('round-trips presign, PUT and GET without an API key; the publicUrl is then a valid reference', async () => {
    const h = await startHarness();
    const presigned = await h.api('POST', '/images/presign', {
      fileName: 'logo.png',
      contentType: 'image/png',
    });
    const { sasUrl, publicUrl } = presigned.json.data;
    expect(sasUrl).toContain('/__blob/');
    expect((await h.raw('GET', publicUrl)).status).toBe(404);
    expect((await createImage(h, { referenceImages: [publicUrl] })).status).toBe(400);
    const bytes = Buffer.from('not really a png');
    expect((await h.raw('PUT', sasUrl, bytes, { 'content-type': 'image/png' })).status).toBe(400);
    expect(
      (await h.raw('PUT', sasUrl.replace(/sig=\w+/, 'sig=bad'), bytes, { 'x-ms-blob-type': 'BlockBlob' }))
        .status,
    ).toBe(403);
    const put = await h.raw('PUT', sasUrl, bytes, {
      'x-ms-blob-type': 'BlockBlob',
      'content-type': 'image/png',
    });
    expect(put.status).toBe(201);
    const got = await h.raw('GET', publicUrl);
    expect(got.bytes.equals(bytes)).toBe(true);
    expect(got.headers['content-type']).toBe('image/png');
    expect((await createImage(h, { referenceImages: [publicUrl] })).status).toBe(200);
  });
});

describe('simulator: faults and inspection', () => {
  const statusesFor = async (seed: number) => {
    const h = await startHarness({
      seed,
      faults: { serverError: 0.3, rateLimit: 0.2, retryAfterSeconds: 7 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const answer = await h.api('GET', '/models');
      statuses.push(answer.status);
      if (answer.status === 429) expect(answer.headers['retry-after']).toBe('7');
    }
    return { statuses, stats: h.sim.stats() };
  };

  it('injects the same faults for the same seed and counts them', async () => {
    const a = await statusesFor(11);
    const b = await statusesFor(11);
    expect(b.statuses).toEqual(a.statuses);
    expect(a.statuses).toContain(500);
    expect(a.statuses).toContain(429);
    expect(a.stats.faultsInjected.serverError).toBe(a.statuses.filter((s) => s === 500).length);
    expect(a.stats.faultsInjected.rateLimit).toBe(a.statuses.filter((s) => s === 429).length);
    expect((await statusesFor(12)).statuses).not.toEqual(a.statuses);
  });

  it('resets sockets, and loses some create answers after the job was created', async () => {
    const h = await startHarness({ faults: { reset: 1 } });
    await expect(h.api('GET', '/models')).rejects.toThrow();
    const lost = await startHarness({ faults: { serverError: 1 }, account: { subscriptionImageQuota: 100 } });
    for (let i = 0; i < 20; i++) expect((await createImage(lost)).status).toBe(500);
    const { jobsCreated } = lost.sim.stats();
    expect(jobsCreated).toBeGreaterThan(0);
    expect(jobsCreated).toBeLessThan(20);
  });

  it('counts requests by template and polls per job; /__sim/stats matches stats()', async () => {
    const h = await startHarness({ fakeClock: true });
    const { jobId } = (await createImage(h)).json.data;
    await h.api('GET', `/jobs/${jobId}`);
    await h.api('GET', `/jobs/${jobId}`);
    const stats = h.sim.stats();
    expect(stats.requests).toEqual({ 'POST /agents/jobs/create': 1, 'GET /jobs/{jobId}': 2 });
    expect(stats.pollsPerJob).toEqual({ [jobId]: 2 });
    expect(stats.jobs[0]).toMatchObject({ jobId, kind: 'image', model: IMAGE_MODEL, status: 'Processing' });
    const served = await h.raw('GET', `${new URL(h.sim.baseUrl).origin}/__sim/stats`);
    expect(JSON.parse(served.bytes.toString())).toEqual(stats);
  });
});
