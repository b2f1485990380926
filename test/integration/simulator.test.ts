import { afterEach, describe, expect, it } from 'vitest';
import {
  FIELD_TYPES,
  MODEL_CATEGORIES,
  type FieldDefinition,
  type FieldOption,
  type Model,
} from '../../src/service/types.js';
import { closeHarnesses, IMAGE_MODEL, LONG_PROMPT, startHarness } from './simulator-helpers.js';

afterEach(closeHarnesses);

describe('simulator: envelope and auth', () => {
  it('wraps data in the spec 2.1 envelope and answers 401 without the right key', async () => {
    const h = await startHarness();
    const ok = await h.api('GET', '/account/balance');
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ success: true, error: null });
    for (const key of [null, 'wrong-key']) {
      const denied = await h.api('GET', '/models', undefined, key);
      expect(denied.status).toBe(401);
      expect(denied.json).toMatchObject({ success: false, errorCode: 'UNAUTHORIZED' });
      expect(typeof denied.json.error).toBe('string');
      expect(JSON.stringify(denied.json)).not.toContain(h.sim.apiKey);
    }
  });

  it('answers 401 after the key is revoked (handle and /__sim/revoke-key)', async () => {
    const h = await startHarness();
    h.sim.revokeApiKey();
    expect((await h.api('GET', '/models')).status).toBe(401);
    const other = await startHarness();
    const revoked = await other.raw('POST', `${new URL(other.sim.baseUrl).origin}/__sim/revoke-key`);
    expect(revoked.status).toBe(200);
    expect((await other.api('GET', '/models')).status).toBe(401);
  });

  it('closes promptly while a keep-alive client holds a socket, and only once', async () => {
    const h = await startHarness();
    expect((await h.api('GET', '/models')).status).toBe(200);
    await h.sim.close();
    await h.sim.close();
    await expect(h.api('GET', '/models')).rejects.toThrow();
  });

  it('answers 404 in the envelope for an unknown API path and job', async () => {
    const h = await startHarness();
    expect((await h.api('GET', '/nope')).status).toBe(404);
    const job = await h.api('GET', '/jobs/job_missing');
    expect(job.status).toBe(404);
    expect(job.json.success).toBe(false);
  });
});

describe('simulator: catalog', () => {
  it('covers every category, field type and field property', async () => {
    const h = await startHarness();
    const { json } = await h.api('GET', '/models');
    const models = json.data as unknown as Model[];
    expect(new Set(models.map((m) => m.category))).toEqual(new Set(MODEL_CATEGORIES));
    const fields = models.flatMap((m) =>
      Object.entries(m.config ?? {})
        .filter(([k]) => k !== '_badges' && k !== 'maxRefImages')
        .map(([, v]) => v as FieldDefinition & Record<string, unknown>),
    );
    expect(new Set(fields.map((f) => f.type))).toEqual(new Set(FIELD_TYPES));
    for (const property of [
      'labelVi',
      'default',
      'advanced',
      'optional',
      'creditCostMultiplier',
      'min',
      'max',
    ]) {
      expect(
        fields.some((f) => f[property] !== undefined),
        property,
      ).toBe(true);
    }
    expect(models.some((m) => m.config?._badges !== undefined)).toBe(true);
    const cardOptions = fields.filter((f) => f.type === 'card-select').flatMap((f) => f.options ?? []);
    expect(cardOptions.some((o) => typeof o.imageUrl === 'string')).toBe(true);
  });

  it('describes the subscription image model of spec 4.3 and filters by category', async () => {
    const h = await startHarness();
    const { json } = await h.api('GET', '/models?category=image');
    expect(json.data).toHaveLength(1);
    const [model] = json.data as unknown as Model[];
    const config = model!.config as Record<string, FieldDefinition> & { maxRefImages: number };
    expect(model!.slug).toBe(IMAGE_MODEL);
    expect(config.maxRefImages).toBe(20);
    expect(config.format).toMatchObject({ type: 'select', default: 'png' });
    expect(config.resolution).toMatchObject({ type: 'select', default: '1K' });
    expect(config.dpi).toMatchObject({ type: 'number', min: 1, max: 1200, optional: true, advanced: true });
    expect(config.requireTransparent).toMatchObject({ type: 'toggle', optional: true });
    expect(config.referenceImages).toMatchObject({ type: 'upload', optional: true });
    expect(config.aspectRatio!.options!.map((o: FieldOption) => o.value)).toEqual([
      '1:1',
      '16:9',
      '9:16',
      '4:3',
      '3:4',
    ]);
    expect((await h.api('GET', '/models?category=nonsense')).json.data).toEqual([]);
  });

  it('uses the configured image model slug', async () => {
    const h = await startHarness({ imageModelSlug: 'custom-image' });
    const { json } = await h.api('GET', '/models?category=image');
    expect((json.data as unknown as Model[])[0]!.slug).toBe('custom-image');
    const created = await h.api('POST', '/agents/jobs/create', { model: IMAGE_MODEL, prompt: LONG_PROMPT });
    expect(created.status).toBe(400);
  });
});

describe('simulator: balance and subscription', () => {
  it('sends the legacy apiKey and topupMemo and computes availableCredit', async () => {
    const h = await startHarness({
      legacyApiKey: 'legacy-abc',
      account: { freeCredit: 10, purchasedCredit: 30 },
    });
    const { json } = await h.api('GET', '/account/balance');
    expect(json.data).toMatchObject({
      freeCredit: 10,
      purchasedCredit: 30,
      lockedCredit: 0,
      availableCredit: 40,
      hasPurchased: true,
      apiKey: 'legacy-abc',
    });
    expect(typeof json.data.topupMemo).toBe('string');
    const defaulted = await startHarness();
    expect((await defaulted.api('GET', '/account/balance')).json.data.apiKey).toMatch(/^legacy-/);
  });

  it('reports the plan quota and the concurrency figure', async () => {
    const h = await startHarness({ account: { subscriptionImageQuota: 3 } });
    const { json } = await h.api('GET', '/account/subscription');
    const subscription = json.data.subscription as { tier: unknown };
    expect(subscription).toMatchObject({
      maxConcurrentJobs: 4,
      quotas: [{ capability: 'image', remaining: 3 }],
    });
    expect(typeof subscription.tier).toBe('string');
  });
});

describe('simulator: charging', () => {
  it('uses the quota first, then locks credits and deducts free before purchased', async () => {
    const h = await startHarness({
      fakeClock: true,
      account: { freeCredit: 5, purchasedCredit: 100, subscriptionImageQuota: 1 },
    });
    const first = await h.api('POST', '/agents/jobs/create', { model: IMAGE_MODEL, prompt: LONG_PROMPT });
    expect(first.json).toMatchObject({ success: true, error: null, errorCode: null });
    expect(first.json.data).toMatchObject({
      status: 'WaitingForAgent',
      chargeSource: 'Subscription',
      creditCost: 0,
      quotaRemaining: 0,
    });
    const second = await h.api('POST', '/agents/jobs/create', { model: IMAGE_MODEL, prompt: LONG_PROMPT });
    expect(second.json.data).toMatchObject({ chargeSource: 'Credit', creditCost: 4, quotaRemaining: null });
    expect((await h.api('GET', '/account/balance')).json.data).toMatchObject({
      lockedCredit: 4,
      availableCredit: 101,
    });
    await h.waitForEnd(second.json.data.jobId);
    expect((await h.api('GET', '/account/balance')).json.data).toMatchObject({
      freeCredit: 1,
      purchasedCredit: 100,
      lockedCredit: 0,
    });
    const third = await h.api('POST', '/agents/jobs/create', { model: IMAGE_MODEL, prompt: LONG_PROMPT });
    await h.waitForEnd(third.json.data.jobId);
    expect((await h.api('GET', '/account/balance')).json.data).toMatchObject({
      freeCredit: 0,
      purchasedCredit: 97,
      availableCredit: 97,
    });
    expect(h.sim.stats()).toMatchObject({ creditsCharged: 8, subscriptionJobs: 1, jobsCreated: 3 });
  });

  it('releases locked credits of a failed job without charging', async () => {
    const h = await startHarness({
      fakeClock: true,
      account: { freeCredit: 0, purchasedCredit: 50, subscriptionImageQuota: 0 },
    });
    const created = await h.api('POST', '/voiceover-videos/create', {
      model: 'voiceover-standard',
      prompt: '[[fail:GENERATION_TIMEOUT]]',
      script: 'Hello',
      sceneCount: 3,
    });
    expect(created.json.data).toMatchObject({ chargeSource: 'Credit', creditCost: 30 });
    expect((await h.api('GET', '/account/balance')).json.data).toMatchObject({
      lockedCredit: 30,
      availableCredit: 20,
    });
    const end = await h.waitForEnd(created.json.data.jobId);
    expect(end).toMatchObject({ status: 'error', failureKind: 'GENERATION_TIMEOUT' });
    expect((await h.api('GET', '/account/balance')).json.data).toMatchObject({
      purchasedCredit: 50,
      lockedCredit: 0,
      availableCredit: 50,
    });
    expect(h.sim.stats().creditsCharged).toBe(0);
  });

  it('answers 402 when credits are short, creating nothing (also after /__sim/account)', async () => {
    const h = await startHarness({
      account: { freeCredit: 100, purchasedCredit: 0, subscriptionImageQuota: 0 },
    });
    const origin = new URL(h.sim.baseUrl).origin;
    const drained = await h.raw('POST', `${origin}/__sim/account`, JSON.stringify({ freeCredit: 3 }));
    expect(drained.status).toBe(200);
    const refused = await h.api('POST', '/agents/jobs/create', { model: IMAGE_MODEL, prompt: LONG_PROMPT });
    expect(refused.status).toBe(402);
    expect(refused.json).toMatchObject({ success: false, errorCode: 'INSUFFICIENT_CREDITS' });
    h.sim.setAccount({ freeCredit: 4 });
    expect(
      (await h.api('POST', '/agents/jobs/create', { model: IMAGE_MODEL, prompt: LONG_PROMPT })).status,
    ).toBe(200);
    expect(h.sim.stats().jobsCreated).toBe(1);
  });
});

describe('simulator: idempotency', () => {
  it('replays the same job for a repeated key, comparing only the key, and charges once', async () => {
    const h = await startHarness({ fakeClock: true, account: { subscriptionImageQuota: 0 } });
    const body = { model: IMAGE_MODEL, prompt: LONG_PROMPT, idempotencyKey: 'order-1' };
    const first = await h.api('POST', '/agents/jobs/create', body);
    const again = await h.api('POST', '/agents/jobs/create', { ...body, prompt: 'something else entirely' });
    expect(again.json.data.jobId).toBe(first.json.data.jobId);
    const video = {
      model: 'render-compose',
      media: ['https://example.com/a.png'],
      idempotencyKey: 'order-2',
    };
    const v1 = await h.api('POST', '/render/video', video);
    const v2 = await h.api('POST', '/render/video', video);
    expect(v2.json.data.jobId).toBe(v1.json.data.jobId);
    expect(h.sim.stats()).toMatchObject({ jobsCreated: 2, idempotentReplays: 2, creditsCharged: 4 + 5 });
  });

  it('creates a new job once the (time-scaled) window has passed', async () => {
    const h = await startHarness({ fakeClock: true, timeScale: 0.01 });
    const body = { model: IMAGE_MODEL, prompt: LONG_PROMPT, idempotencyKey: 'order-1' };
    const first = await h.api('POST', '/agents/jobs/create', body);
    h.tick(2_999); // window: 300 s × 0.01
    expect((await h.api('POST', '/agents/jobs/create', body)).json.data.jobId).toBe(first.json.data.jobId);
    h.tick(1);
    const later = await h.api('POST', '/agents/jobs/create', body);
    expect(later.json.data.jobId).not.toBe(first.json.data.jobId);
    expect(h.sim.stats().jobsCreated).toBe(2);
  });
});

describe('simulator: validation', () => {
  it('refuses bad bodies with 400 and ignores unknown fields', async () => {
    const h = await startHarness();
    const create = (body: Record<string, unknown>) =>
      h.api('POST', '/agents/jobs/create', { model: IMAGE_MODEL, prompt: LONG_PROMPT, ...body });
    const refs = Array.from({ length: 21 }, (_, i) => `https://example.com/${i}.png`);
    for (const bad of [
      { model: 'other' },
      { prompt: undefined },
      { format: 'gif' },
      { resolution: '4K' },
      { dpi: 0 },
      { dpi: 1.5 },
      { referenceImages: refs },
      { referenceImages: ['ftp://x/y.png'] },
    ]) {
      const answer = await create(bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
      expect(answer.json.success).toBe(false);
    }
    expect((await create({ colour: 'blue', dpi: 300, referenceImages: refs.slice(0, 20) })).status).toBe(200);
    const wrongEndpoint = await h.api('POST', '/stock-videos/create', {
      model: 'voiceover-standard',
      script: 'x',
    });
    expect(wrongEndpoint.status).toBe(400);
    const outOfBounds = await h.api('POST', '/voiceover-videos/create', {
      model: 'voiceover-standard',
      script: 'x',
      sceneCount: 99,
    });
    expect(outOfBounds.status).toBe(400);
    expect(h.sim.stats().jobsCreated).toBe(1);
  });
});
