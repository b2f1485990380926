import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LocalFileRef } from '../../../src/manifest/types.js';
import { canonicalJson } from '../../../src/canonical-json.js';
import {
  canonicalHashedParams,
  hashPayload,
  hashPayloadWithParams,
} from '../../../src/catalog/payload-hash.js';

/** The same value with every object's keys in a shuffled order (driven by `seed`). */
function permuteKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => permuteKeys(item, seed + i));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  const shuffled = entries
    .map((entry, i) => ({ entry, order: Math.sin(seed * 997 + i * 31) }))
    .sort((a, b) => a.order - b.order)
    .map(({ entry: [key, inner] }, i) => [key, permuteKeys(inner, seed + i + 1)] as const);
  return Object.fromEntries(shuffled);
}

describe('canonicalJson', () => {
  it('sorts keys recursively and follows JSON.stringify otherwise', () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }], u: undefined })).toBe(
      '{"a":[2,{"c":4,"d":3}],"b":1}',
    );
    expect(canonicalJson([undefined, Number.NaN, 'x'])).toBe('[null,null,"x"]');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ date: new Date(0) })).toBe('{"date":"1970-01-01T00:00:00.000Z"}');
  });

  it('is invariant under key permutation (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (value, seed) => {
        expect(canonicalJson(permuteKeys(value, seed))).toBe(canonicalJson(value));
      }),
    );
  });

  it('parses back to an equal value (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('hashPayload', () => {
  const base = {
    kind: 'image' as const,
    model: 'chatgpt-image-sangtao',
    prompt: 'A latte on a marble counter',
    params: { aspectRatio: '1:1', dpi: 300 },
  };

  it('is a stable SHA-256 that ignores key order', () => {
    const hash = hashPayload(base);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(
      hashPayload({
        params: { dpi: 300, aspectRatio: '1:1' },
        prompt: base.prompt,
        model: base.model,
        kind: 'image',
      }),
    ).toBe(hash);
    // Pinned: a change here would change every idempotency key and mark every job as changed.
    expect(hash).toBe('8be5e0b6266b04856708e383fd76801393ded69e7132ffb174d00d5829a6574c');
  });

  it('changes when the prompt, a param, the model or the kind changes', () => {
    const hash = hashPayload(base);
    expect(hashPayload({ ...base, prompt: 'A mocha on a marble counter' })).not.toBe(hash);
    expect(hashPayload({ ...base, params: { ...base.params, dpi: 301 } })).not.toBe(hash);
    expect(hashPayload({ ...base, model: 'flux-pro' })).not.toBe(hash);
    expect(hashPayload({ ...base, kind: 'render-video' })).not.toBe(hash);
    const { prompt: _p, ...noPrompt } = base;
    expect(hashPayload(noPrompt)).not.toBe(hash);
  });

  it('hashes local files by content, not by path', () => {
    const ref = (path: string, sha256: string): LocalFileRef => ({
      localFile: path,
      path: `/abs/${path}`,
      sha256,
      contentType: 'image/png',
      bytes: 10,
    });
    const withFile = (value: LocalFileRef) =>
      hashPayload({ ...base, params: { referenceImages: ['https://x/a.png', value] } });
    expect(withFile(ref('a.png', 'aa'))).toBe(withFile(ref('moved/b.png', 'aa')));
    expect(withFile(ref('a.png', 'aa'))).not.toBe(withFile(ref('a.png', 'bb')));
    expect(hashPayload({ ...base, params: { mask: ref('a.png', 'aa') } })).toBe(
      hashPayload({ ...base, params: { mask: { file: 'aa' } } }),
    );
  });
});

describe('hashPayloadWithParams', () => {
  it('is hashPayload, byte for byte, from the params written once', () => {
    const file = fc.record({
      localFile: fc.string(),
      path: fc.string(),
      sha256: fc.stringMatching(/^[0-9a-f]{64}$/),
      contentType: fc.constant('image/png'),
      bytes: fc.nat(),
    });
    fc.assert(
      fc.property(
        fc.constantFrom('image', 'render-video'),
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), file, fc.array(file, { maxLength: 2 }))),
        (kind, model, prompt, params) => {
          const job = { kind: kind as 'image', model, prompt, params };
          expect(hashPayloadWithParams(job, canonicalHashedParams(params))).toBe(hashPayload(job));
        },
      ),
    );
  });
});
