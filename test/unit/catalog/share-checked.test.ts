import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createJobValidator, type CatalogValidationContext } from '../../../src/catalog/validate-job.js';
import type { ExpandedJob } from '../../../src/manifest/types.js';
import type { Model } from '../../../src/service/types.js';
import { locate, makeCatalog, makeJob } from './fixtures.js';

/** The fixtures' catalog and a model whose multiplier takes words: a warning per job, never an error. */
const catalog = (): Model[] => [
  ...makeCatalog(),
  {
    slug: 'flux-words',
    displayName: 'Flux words',
    category: 'image',
    creditCost: 2,
    config: {
      quality: {
        type: 'select',
        label: 'Quality',
        optional: true,
        creditCostMultiplier: true,
        options: [
          { value: '2', label: 'Double' },
          { value: 'high', label: 'High' },
        ],
      },
    },
  },
];

const ctx: CatalogValidationContext = { locate, manifestDir: '/manifests', fileInfo: () => undefined };

const PARAMS: Record<string, unknown>[] = [
  {},
  { style: 'photo', numImages: 2 },
  { style: 'photo', numImages: 2, quality: '2x' },
  { style: 'anime', numImages: 9 },
  { aspectRatio: '16:9' },
  { aspectRatio: '4:3', referenceImages: ['https://example.com/a.png'] },
  { voice: 'anna' },
  { nope: true },
  { quality: 'high' },
  { quality: '2' },
];
const MODELS = ['chatgpt-image-sangtao', 'flux-pro', 'flux-words', 'voice-pro', 'render-basic', 'flux-prox'];
const PROMPTS = ['A latte on a marble counter, soft morning light, overhead shot', 'a cup', '', undefined];
/** Two job entries: jobs of one entry share its origins object, as expansion makes them. */
const ORIGINS = [0, 1].map((specIndex) => {
  const names = new Set(PARAMS.flatMap((params) => Object.keys(params)));
  return {
    job: ['jobs', specIndex],
    model: ['jobs', specIndex, 'model'],
    prompt: ['jobs', specIndex, 'prompt'],
    params: Object.fromEntries([...names].map((name) => [name, ['jobs', specIndex, 'params', name]])),
  };
});

const job = fc.record({
  entry: fc.integer({ min: 0, max: 1 }),
  model: fc.constantFrom(...MODELS),
  params: fc.constantFrom(...PARAMS),
  prompt: fc.constantFrom(...PROMPTS),
});

/** A job of `drawn`, made afresh (params copied, as expansion renders them for each job). */
function makeDrawnJob({ entry, model, params, prompt }: Drawn, id: string): ExpandedJob {
  const made = makeJob({
    id,
    model,
    params: structuredClone(params),
    specIndex: entry,
    origins: ORIGINS[entry]!,
  });
  if (prompt === undefined) delete made.prompt;
  else made.prompt = prompt;
  return made;
}

interface Drawn {
  entry: number;
  model: string;
  params: Record<string, unknown>;
  prompt: string | undefined;
}

/** Jobs drawn in runs of one to three alike, as a matrix entry gives them. */
const jobs = fc
  .array(fc.tuple(job, fc.integer({ min: 1, max: 3 })), { maxLength: 30 })
  .map((runs) =>
    runs
      .flatMap(([drawn, count]) => Array.from({ length: count }, () => drawn))
      .map((drawn, index) => makeDrawnJob(drawn, `job-${index}`)),
  );

describe('createJobValidator with shareChecked', () => {
  it('gives the issues and the checked params it gives without sharing them', () => {
    fc.assert(
      fc.property(jobs, (withIds) => {
        const shared = createJobValidator(catalog(), ctx, { shareChecked: true });
        const own = createJobValidator(catalog(), ctx);
        expect(withIds.map((one) => shared.check(one))).toEqual(withIds.map((one) => own.check(one)));
        expect(shared.issues).toEqual(own.issues);
      }),
      { numRuns: 200 },
    );
  });

  it('checks the params of the jobs of one entry once when they are the same', () => {
    const validator = createJobValidator(catalog(), ctx, { shareChecked: true });
    const jobs = [1, 2, 3].map((n) =>
      makeJob({
        id: `job-${n}`,
        model: 'flux-pro',
        params: { style: 'photo', numImages: 2 },
        origins: ORIGINS[0]!,
      }),
    );
    const [first, second, third] = jobs.map((one) => validator.check(one));
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(first).toEqual({
      params: { style: 'photo', numImages: 2, enhance: false },
      written: { style: 'photo', numImages: 2 },
      credits: 6,
    });
  });
});
