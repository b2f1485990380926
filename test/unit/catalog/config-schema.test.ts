import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { CONFIG_AJV_OPTIONS } from '../../../src/catalog/config-ajv-options.js';
import { compileModelConfig, isListUploadField, readMultiplier } from '../../../src/catalog/config-schema.js';
import type { Model } from '../../../src/service/types.js';
import { makeCatalog } from './fixtures.js';

function model(slug: string): Model {
  const found = makeCatalog().find((m) => m.slug === slug);
  if (found === undefined) throw new Error(slug);
  return found;
}

describe('compileModelConfig', () => {
  it('maps every field type to a JSON Schema', () => {
    const compiled = compileModelConfig(model('flux-pro'));
    expect(compiled.schema).toEqual({
      type: 'object',
      properties: {
        style: { enum: ['photo', 'anime'] },
        numImages: { type: 'number', minimum: 1, maximum: 4 },
        quality: { enum: ['1', '2x'] },
        negativePrompt: { type: 'string' },
        enhance: { type: 'boolean' },
        mask: { type: 'string', minLength: 1 },
      },
      required: ['style'],
      additionalProperties: false,
    });
    expect(compiled.defaults).toEqual([
      ['numImages', 1],
      ['enhance', false],
    ]);
    expect(compiled.multipliers.map((p) => p.name)).toEqual(['numImages', 'quality']);
    expect(compiled.params.get('mask')?.upload).toBe('single');
  });

  it('accepts valid params and rejects wrong types, options, ranges and unknown names', () => {
    const { validate } = compileModelConfig(model('flux-pro'));
    expect(
      validate({ style: 'photo', numImages: 4, negativePrompt: 'blur', enhance: true, mask: 'm.png' }),
    ).toBe(true);
    expect(validate({ style: 'oil' })).toBe(false);
    expect(validate({ style: 'photo', numImages: 5 })).toBe(false);
    expect(validate({ style: 'photo', numImages: '2' })).toBe(false);
    expect(validate({ style: 'photo', enhance: 'yes' })).toBe(false);
    expect(validate({ style: 'photo', negativePrompt: 3 })).toBe(false);
    expect(validate({ style: 'photo', mask: '' })).toBe(false);
    expect(validate({ style: 'photo', stlye: 'x' })).toBe(false);
    expect(validate({})).toBe(false);
  });

  it('leaves _badges and maxRefImages out of the params and makes referenceImages a list', () => {
    const compiled = compileModelConfig(model('chatgpt-image-sangtao'));
    expect([...compiled.params.keys()]).toEqual(['aspectRatio', 'referenceImages']);
    expect(compiled.maxRefImages).toBe(4);
    expect(compiled.refImagesParam).toBe('referenceImages');
    expect(compiled.validate({ referenceImages: ['a.png', 'https://x/y.png'] })).toBe(true);
    expect(compiled.validate({ referenceImages: 'a.png' })).toBe(false);
    expect(compiled.validate({ _badges: [] })).toBe(false);
  });

  it('treats a `ref` upload as a list when maxRefImages allows several', () => {
    const compiled = compileModelConfig(model('flux-multi'));
    expect(compiled.params.get('refs')?.upload).toBe('list');
    expect(compiled.refImagesParam).toBe('refs');
  });

  it('does not let a model without config accept or know any param', () => {
    const compiled = compileModelConfig(model('render-basic'));
    expect(compiled.hasConfig).toBe(false);
    expect(compiled.params.size).toBe(0);
  });

  it('accepts anything for an unknown field type and keeps prompt out of the params', () => {
    const compiled = compileModelConfig({
      slug: 'future-model',
      displayName: 'Future',
      category: 'image',
      creditCost: 1,
      config: {
        prompt: { type: 'text', label: 'Prompt' },
        palette: { type: 'color-picker', label: 'Palette' },
        notAField: true,
      },
    });
    expect([...compiled.params.keys()]).toEqual(['palette']);
    expect(compiled.promptField?.required).toBe(true);
    expect(compiled.validate({ palette: { r: 1 } })).toBe(true);
  });

  it('compiles once per model and reuses the result for an equal config', () => {
    const first = compileModelConfig(model('voice-pro'));
    expect(compileModelConfig(model('voice-pro'))).toBe(first);
    const changed = model('voice-pro');
    changed.config = { voice: { type: 'text', label: 'Voice' } };
    const recompiled = compileModelConfig(changed);
    expect(recompiled).not.toBe(first);
    expect(recompiled.validate({ voice: 'anything' })).toBe(true);
  });

  it('refuses a schema the meta-schema rejects with the error ajv itself throws', () => {
    // JSON reads 1e400 as Infinity, which is not a JSON Schema number. The runtime Ajv skips its own
    // meta-schema check; the build-time compiled check must refuse the schema the same way.
    const config = JSON.parse(
      '{ "width": { "type": "number", "label": "Width", "min": 1e400 } }',
    ) as NonNullable<Model['config']>;
    const reference = (() => {
      const schema = {
        type: 'object',
        properties: { width: { type: 'number', minimum: Infinity } },
        required: ['width'],
        additionalProperties: false,
      };
      try {
        new Ajv(CONFIG_AJV_OPTIONS).compile(schema);
      } catch (error) {
        return (error as Error).message;
      }
      return 'compiled';
    })();
    expect(reference).toBe('schema is invalid: data/properties/width/minimum must be number');
    expect(() =>
      compileModelConfig({
        slug: 'odd-bounds',
        displayName: 'Odd',
        category: 'image',
        creditCost: 1,
        config,
      }),
    ).toThrow(new Error(reference));
  });
});

describe('isListUploadField', () => {
  it('decides from the name and maxRefImages', () => {
    expect(isListUploadField('referenceImages', undefined)).toBe(true);
    expect(isListUploadField('imageUrls', undefined)).toBe(true);
    expect(isListUploadField('mask', 4)).toBe(false);
    expect(isListUploadField('refImage', 4)).toBe(true);
    expect(isListUploadField('refImage', 1)).toBe(false);
    expect(isListUploadField('refImage', undefined)).toBe(false);
  });
});

describe('readMultiplier', () => {
  it('reads numbers and numeric option values', () => {
    expect(readMultiplier(3)).toBe(3);
    expect(readMultiplier('2')).toBe(2);
    expect(readMultiplier('2x')).toBe(2);
    expect(readMultiplier('high')).toBeUndefined();
    expect(readMultiplier(true)).toBeUndefined();
    expect(readMultiplier(Number.NaN)).toBeUndefined();
  });
});
