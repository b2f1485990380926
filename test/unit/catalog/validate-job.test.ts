import { describe, expect, it } from 'vitest';
import {
  validateJobsAgainstCatalog,
  type CatalogValidationContext,
} from '../../../src/catalog/validate-job.js';
import type { ExpandedJob } from '../../../src/manifest/types.js';
import { hashPayload, legacyPayloadHash } from '../../../src/catalog/payload-hash.js';
import { locate, makeCatalog, makeJob } from './fixtures.js';

const ctx: CatalogValidationContext = { locate, manifestDir: '/manifests', fileInfo: () => undefined };

function validate(...jobs: ExpandedJob[]) {
  return validateJobsAgainstCatalog(jobs, makeCatalog(), ctx);
}

/** The issues of one job as `severity code: message` lines. */
function messages(job: ExpandedJob): string[] {
  return validate(job).issues.map((i) => `${i.severity} ${i.code}: ${i.message}`);
}

const flux = (params: Record<string, unknown>) => makeJob({ model: 'flux-pro', params });

describe('validateJobsAgainstCatalog: a valid job', () => {
  it('plans it with defaults applied, without touching the input', () => {
    const job = flux({ style: 'photo', numImages: 2 });
    const { planned, issues } = validate(job);
    expect(issues).toEqual([]);
    expect(planned).toHaveLength(1);
    expect(planned[0]).toMatchObject({
      id: 'job-1',
      kind: 'image',
      model: 'flux-pro',
      params: { style: 'photo', numImages: 2, enhance: false },
      estimatedCredits: 6,
    });
    expect(planned[0]!.payloadHash).toMatch(/^[0-9a-f]{64}$/);
    expect(job.params).toEqual({ style: 'photo', numImages: 2 });
  });

  it('hashes what the manifest wrote, so a catalog default does not change the job (#11.2)', () => {
    const job = flux({ style: 'photo', numImages: 2 });
    const [planned] = validate(job).planned;
    const base = { kind: 'image' as const, model: 'flux-pro', prompt: job.prompt };
    expect(planned!.payloadHash).toBe(hashPayload({ ...base, params: { style: 'photo', numImages: 2 } }));
    // Releases up to 0.1.0 journaled the hash with the defaults folded in: still recognised.
    expect(legacyPayloadHash(planned!)).toBe(hashPayload({ ...base, params: planned!.params }));
    expect(legacyPayloadHash(planned!)).not.toBe(planned!.payloadHash);
    const otherDefault = makeCatalog().map((model) =>
      model.slug === 'flux-pro'
        ? { ...model, config: { ...model.config, enhance: { type: 'toggle', label: 'E', default: true } } }
        : model,
    );
    const [again] = validateJobsAgainstCatalog([job], otherDefault, ctx).planned;
    expect(again!.params.enhance).toBe(true);
    expect(again!.payloadHash).toBe(planned!.payloadHash);
    const explicit = validate(flux({ style: 'photo', numImages: 2, enhance: false })).planned[0];
    expect(explicit!.payloadHash).not.toBe(planned!.payloadHash);
    expect(legacyPayloadHash(explicit!)).toBe(explicit!.payloadHash);
  });

  it('multiplies the credit cost by every multiplier, including a numeric select option', () => {
    const { planned } = validate(flux({ style: 'photo', numImages: 3, quality: '2x' }));
    expect(planned[0]!.estimatedCredits).toBe(18);
  });

  it('accepts spec 4.3 fields on image jobs even when the model config does not list them', () => {
    const job = makeJob({ params: { dpi: 300, format: 'jpeg', resolution: '2K', requireTransparent: true } });
    const { planned, issues } = validate(job);
    expect(issues).toEqual([]);
    expect(planned[0]!.params).toEqual({
      dpi: 300,
      format: 'jpeg',
      resolution: '2K',
      requireTransparent: true,
      aspectRatio: '1:1',
    });
  });
});

describe('validateJobsAgainstCatalog: params', () => {
  it('rejects each field type with what was expected and received', () => {
    expect(messages(flux({ style: 'oil' }))).toEqual([
      'error invalid-param: param "style" must be one of "photo", "anime"; received "oil" (string)',
    ]);
    expect(messages(flux({ style: 'photo', numImages: 9 }))).toEqual([
      'error invalid-param: param "numImages" must be a number from 1 to 4; received 9 (number)',
    ]);
    expect(messages(flux({ style: 'photo', numImages: 'two' }))).toEqual([
      'error invalid-param: param "numImages" must be a number from 1 to 4; received "two" (string)',
    ]);
    expect(messages(flux({ style: 'photo', negativePrompt: 5 }))).toEqual([
      'error invalid-param: param "negativePrompt" must be a string; received 5 (number)',
    ]);
    expect(messages(flux({ style: 'photo', enhance: 'yes' }))).toEqual([
      'error invalid-param: param "enhance" must be true or false; received "yes" (string)',
    ]);
    expect(messages(flux({ style: 'photo', mask: 42 }))).toEqual([
      'error invalid-param: param "mask" must be a non-empty string; received 42 (number)',
    ]);
  });

  it('reports a missing required param at the job', () => {
    const { issues, planned } = validate(flux({}));
    expect(planned).toEqual([]);
    expect(issues).toEqual([
      {
        severity: 'error',
        code: 'missing-param',
        message: 'missing required param "style"; expected one of "photo", "anime"',
        jobId: 'job-1',
        location: { file: 'm.yaml#jobs.0', line: 1, col: 1 },
      },
    ]);
  });

  it('reports an unknown param with a did-you-mean hint at its own line', () => {
    const { issues } = validate(flux({ style: 'photo', num_images: 2 }));
    expect(issues).toEqual([
      {
        severity: 'error',
        code: 'unknown-param',
        message:
          'unknown param "num_images" for model "flux-pro" (the service would silently ignore it); known params: style, numImages, quality, negativePrompt, enhance, mask, aspectRatio, format, referenceImages, resolution, requireTransparent, dpi',
        hint: 'did you mean "numImages"?',
        jobId: 'job-1',
        location: { file: 'm.yaml#jobs.0.params.num_images', line: 1, col: 1 },
      },
    ]);
  });

  it('points an unknown param at its key when the manifest can locate keys', () => {
    const withKeys = {
      ...ctx,
      locateKey: (path: readonly (string | number)[]) => ({ ...locate(path), col: 0 }),
    };
    const job = flux({ style: 'photo', num_images: 2 });
    const [issue] = validateJobsAgainstCatalog([job], makeCatalog(), withKeys).issues;
    expect(issue?.location).toEqual({ file: 'm.yaml#jobs.0.params.num_images', line: 1, col: 0 });
  });

  it('offers spec 4.3 names for image jobs and no hint when nothing is close', () => {
    const [typo] = validate(makeJob({ params: { resolutoin: '2K' } })).issues;
    expect(typo?.hint).toBe('did you mean "resolution"?');
    const [far] = validate(makeJob({ params: { zzzzzzzz: 1 } })).issues;
    expect(far?.code).toBe('unknown-param');
    expect(far?.hint).toBeUndefined();
  });

  it('refuses params the runner sets itself', () => {
    expect(messages(makeJob({ params: { idempotencyKey: 'abc', prompt: 'x' } }))).toEqual([
      'error reserved-param: param "prompt" belongs at the job level; write it as the job\'s "prompt:" instead of under params',
      'error reserved-param: param "idempotencyKey" is set by the runner (derived from the job id and payload); remove it',
    ]);
  });

  it('respects maxRefImages', () => {
    const urls = [
      'https://a/1.png',
      'https://a/2.png',
      'https://a/3.png',
      'https://a/4.png',
      'https://a/5.png',
    ];
    expect(messages(makeJob({ params: { referenceImages: urls } }))).toEqual([
      'error too-many-reference-images: param "referenceImages" takes at most 4 images for model "chatgpt-image-sangtao" (maxRefImages); received 5',
    ]);
    expect(messages(makeJob({ model: 'flux-multi', params: { refs: urls.slice(0, 3) } }))).toEqual([
      'error too-many-reference-images: param "refs" takes at most 2 images for model "flux-multi" (maxRefImages); received 3',
    ]);
  });

  it('applies spec 4.3 rules to image jobs on top of the model config', () => {
    expect(
      messages(makeJob({ params: { dpi: 0, format: 'gif', resolution: '4K', requireTransparent: 'yes' } })),
    ).toEqual([
      'error invalid-param: param "format" must be one of "png", "jpeg"; received "gif" (string)',
      'error invalid-param: param "resolution" must be one of "1K", "2K"; received "4K" (string)',
      'error invalid-param: param "requireTransparent" must be true or false; received "yes" (string)',
      'error invalid-param: param "dpi" must be an integer from 1 to 1200; received 0 (number)',
    ]);
    expect(messages(makeJob({ params: { dpi: 72.5, aspectRatio: 3 } }))).toEqual([
      'error invalid-param: param "aspectRatio" must be one of "1:1", "16:9", "9:16"; received 3 (number)',
      'error invalid-param: param "dpi" must be an integer from 1 to 1200; received 72.5 (number)',
    ]);
  });

  it('caps referenceImages at 20 for image models without maxRefImages', () => {
    const job = makeJob({
      model: 'flux-pro',
      params: { style: 'photo', referenceImages: Array.from({ length: 21 }, (_, i) => `https://a/${i}.png`) },
    });
    expect(messages(job)).toEqual([
      'error invalid-param: param "referenceImages" takes at most 20 items; received 21',
    ]);
  });

  it('warns once per model that params of a model without config are not checked', () => {
    const jobs = [1, 2].map((n) =>
      makeJob({
        id: `r${n}`,
        kind: 'render-video',
        model: 'render-basic',
        prompt: 'x',
        params: { layout: 'grid' },
      }),
    );
    const { planned, issues } = validate(...jobs);
    expect(planned).toHaveLength(2);
    expect(issues.map((i) => `${i.severity} ${i.code} ${i.jobId}`)).toEqual([
      'warning params-not-checked r1',
    ]);
  });
});

describe('validateJobsAgainstCatalog: models, kinds and prompts', () => {
  it('reports an unknown model with a did-you-mean hint at the model line', () => {
    const [issue] = validate(makeJob({ model: 'flux-por' })).issues;
    expect(issue).toEqual({
      severity: 'error',
      code: 'unknown-model',
      message: 'unknown model "flux-por": not in the catalog',
      hint: 'did you mean "flux-pro"?',
      jobId: 'job-1',
      location: { file: 'm.yaml#jobs.0.model', line: 1, col: 1 },
    });
    const [far] = validate(makeJob({ model: 'nothing-like-it' })).issues;
    expect(far?.hint).toBe('models that fit: "chatgpt-image-sangtao", "flux-pro", "flux-multi"');
  });

  it('suggests only models the runner can run for a misspelled model', () => {
    const catalog = makeCatalog();
    catalog.push({
      slug: 'inpaint-edit',
      displayName: 'Inpaint',
      category: 'inpaint',
      creditCost: 3,
      config: {},
    });
    const [issue] = validateJobsAgainstCatalog([makeJob({ model: 'inpaint-edt' })], catalog, ctx).issues;
    expect(issue?.code).toBe('unknown-model');
    expect(issue?.hint).not.toContain('inpaint-edit');
  });

  it('reports a model whose category does not fit the kind', () => {
    expect(messages(makeJob({ kind: 'image', model: 'voice-pro', params: { voice: 'anna' } }))).toEqual([
      'error wrong-category: model "voice-pro" is a "voiceovervideo" model; kind "image" expects a model of category "image"',
    ]);
    const ok = validate(
      makeJob({ kind: 'voiceover-video', model: 'voice-pro', prompt: 'hi', params: { voice: 'anna' } }),
    );
    expect(ok.issues).toEqual([]);
    expect(ok.planned[0]!.params).toEqual({ voice: 'anna', duration: 30 });
  });

  it('requires a prompt on image jobs and warns about a very short one', () => {
    const { prompt: _omit, ...withoutPrompt } = makeJob();
    expect(messages(withoutPrompt)).toEqual([
      'error missing-prompt: job needs a prompt describing the scene, style and composition; received none',
    ]);
    const short = validate(makeJob({ prompt: 'a cat' }));
    expect(short.issues.map((i) => `${i.severity} ${i.code}: ${i.message}`)).toEqual([
      'warning prompt-too-short: prompt "a cat" is very short; expected at least 4 words and 20 characters (the service fails vague prompts with PROMPT_UNCLEAR)',
    ]);
    expect(short.issues[0]!.location).toEqual({ file: 'm.yaml#jobs.0.prompt', line: 1, col: 1 });
    expect(short.planned).toHaveLength(1);
  });

  it('reports all issues of all jobs, each with its expanded job id', () => {
    const jobs = [
      makeJob({ id: 'a', model: 'flux-pro', params: { style: 'oil', numImages: 0 } }),
      makeJob({ id: 'b', model: 'nope' }),
      makeJob({ id: 'c', model: 'flux-pro', params: { style: 'anime' } }),
    ];
    const { planned, issues } = validate(...jobs);
    expect(planned.map((p) => p.id)).toEqual(['c']);
    expect(issues.map((i) => `${i.jobId} ${i.code}`)).toEqual([
      'a invalid-param',
      'a invalid-param',
      'b unknown-model',
    ]);
  });
});

describe('validateJobsAgainstCatalog: costs and defaults', () => {
  it('warns about a multiplier value that is not a number and counts it as 1', () => {
    const catalog = makeCatalog();
    catalog.push({
      slug: 'tiers',
      displayName: 'Tiers',
      category: 'image',
      creditCost: 4,
      config: {
        tier: {
          type: 'select',
          label: 'Tier',
          creditCostMultiplier: true,
          options: [{ value: 'high', label: 'High' }],
        },
      },
    });
    const job = makeJob({ model: 'tiers', params: { tier: 'high' } });
    const { planned, issues } = validateJobsAgainstCatalog([job], catalog, ctx);
    expect(planned[0]!.estimatedCredits).toBe(4);
    expect(issues.map((i) => `${i.severity} ${i.code}: ${i.message}`)).toEqual([
      'warning cost-multiplier-not-numeric: param "tier" multiplies the credit cost but its value "high" is not a number; it is counted as 1',
    ]);
  });

  it('gives every job its own copy of an object default', () => {
    const catalog = makeCatalog();
    catalog.push({
      slug: 'with-list-default',
      displayName: 'List default',
      category: 'image',
      creditCost: 1,
      config: { referenceImages: { type: 'upload', label: 'Refs', default: ['https://a/x.png'] } },
    });
    const jobs = ['a', 'b'].map((id) => makeJob({ id, model: 'with-list-default' }));
    const { planned } = validateJobsAgainstCatalog(jobs, catalog, ctx);
    expect(planned[0]!.params.referenceImages).toEqual(['https://a/x.png']);
    expect(planned[0]!.params.referenceImages).not.toBe(planned[1]!.params.referenceImages);
  });
});

describe('validateJobsAgainstCatalog: an impossible catalog price (#24.2)', () => {
  it.each([[-30], ['free'], [null], [Infinity], [undefined]])(
    'refuses a job of a model whose creditCost is %s, naming the model and the value',
    (creditCost) => {
      const catalog = makeCatalog().map((model) =>
        model.slug === 'flux-pro' ? { ...model, creditCost } : model,
      );
      const { planned, issues } = validateJobsAgainstCatalog([flux({ style: 'photo' })], catalog, ctx);
      expect(planned).toEqual([]);
      expect(issues).toHaveLength(1);
      expect(issues[0]).toMatchObject({ severity: 'error', code: 'invalid-credit-cost', jobId: 'job-1' });
      expect(issues[0]!.message).toContain(
        `model "flux-pro" has creditCost ${String(creditCost === undefined ? 'nothing' : typeof creditCost === 'string' ? `"${creditCost}"` : creditCost)} in the catalog`,
      );
    },
  );

  it('prices a model whose creditCost came as numeric text', () => {
    const catalog = makeCatalog().map((model) =>
      model.slug === 'flux-pro' ? { ...model, creditCost: '3' } : model,
    );
    const { planned, issues } = validateJobsAgainstCatalog([flux({ style: 'photo' })], catalog, ctx);
    expect(issues).toEqual([]);
    expect(planned[0]?.estimatedCredits).toBe(3);
  });
});
