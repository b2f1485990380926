import type { ExpandedJob, SourceLocation, YamlPath } from '../../../src/manifest/types.js';
import type { Model } from '../../../src/service/types.js';

/** A hand-built catalog: one field of each type, a multiplier, maxRefImages and _badges. */
export function makeCatalog(): Model[] {
  return [
    {
      slug: 'chatgpt-image-sangtao',
      displayName: 'Subscription image',
      category: 'image',
      creditCost: 2,
      config: {
        _badges: ['subscription'],
        maxRefImages: 4,
        aspectRatio: {
          type: 'select',
          label: 'Aspect ratio',
          default: '1:1',
          options: [
            { value: '1:1', label: 'Square' },
            { value: '16:9', label: 'Wide' },
            { value: '9:16', label: 'Tall' },
          ],
        },
        referenceImages: { type: 'upload', label: 'Reference images', optional: true },
      },
    },
    {
      slug: 'flux-pro',
      displayName: 'Flux Pro',
      category: 'image',
      creditCost: 3,
      config: {
        style: {
          type: 'card-select',
          label: 'Style',
          options: [
            { value: 'photo', label: 'Photo' },
            { value: 'anime', label: 'Anime' },
          ],
        },
        numImages: {
          type: 'number',
          label: 'Images',
          min: 1,
          max: 4,
          default: 1,
          creditCostMultiplier: true,
        },
        quality: {
          type: 'select',
          label: 'Quality',
          optional: true,
          creditCostMultiplier: true,
          options: [
            { value: '1', label: 'Standard' },
            { value: '2x', label: 'High' },
          ],
        },
        negativePrompt: { type: 'text', label: 'Negative prompt', optional: true, advanced: true },
        enhance: { type: 'toggle', label: 'Enhance', default: false },
        mask: { type: 'upload', label: 'Mask', optional: true },
      },
    },
    {
      slug: 'flux-multi',
      displayName: 'Flux multi reference',
      category: 'image',
      creditCost: 1,
      config: { maxRefImages: 2, refs: { type: 'upload', label: 'References', optional: true } },
    },
    {
      slug: 'voice-pro',
      displayName: 'Voice Pro',
      category: 'voiceovervideo',
      creditCost: 10,
      config: {
        voice: { type: 'select', label: 'Voice', options: [{ value: 'anna', label: 'Anna' }] },
        duration: { type: 'number', label: 'Duration', min: 5, max: 60, default: 30 },
      },
    },
    { slug: 'render-basic', displayName: 'Render', category: 'render', creditCost: 5, config: null },
  ];
}

/** `locate` that encodes the YAML path, so tests can see where an issue points. */
export function locate(path: YamlPath): SourceLocation {
  return { file: `m.yaml#${path.join('.')}`, line: 1, col: 1 };
}

/** An expanded job with origins for every param, as the manifest loader would produce. */
export function makeJob(overrides: Partial<ExpandedJob> & { specIndex?: number } = {}): ExpandedJob {
  const specIndex = overrides.specIndex ?? 0;
  const params = overrides.params ?? {};
  const base: ExpandedJob = {
    id: 'job-1',
    kind: 'image',
    model: 'chatgpt-image-sangtao',
    prompt: 'A latte on a marble counter, soft morning light, overhead shot',
    params,
    matrixValues: {},
    specIndex,
    origins: {
      job: ['jobs', specIndex],
      model: ['jobs', specIndex, 'model'],
      prompt: ['jobs', specIndex, 'prompt'],
      params: Object.fromEntries(
        Object.keys(params).map((name) => [name, ['jobs', specIndex, 'params', name]]),
      ),
    },
  };
  return { ...base, ...overrides, origins: overrides.origins ?? base.origins };
}
