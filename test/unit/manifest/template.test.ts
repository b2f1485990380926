import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileTemplate,
  hasTemplate,
  renderTemplate,
  type CompiledTemplate,
} from '../../../src/manifest/template.js';

function compile(source: string): CompiledTemplate {
  const result = compileTemplate(source);
  if (!result.ok) throw new Error(result.message);
  return result.template;
}

const lookup =
  (values: Record<string, string>) =>
  (name: string): string | undefined =>
    values[name];

describe('compileTemplate / renderTemplate', () => {
  it('inserts names with or without whitespace inside the braces', () => {
    const template = compile('{{a}}-{{ b }}-{{   env.HOME   }}-{{ job.kind }}');
    expect(template.names).toEqual(['a', 'b', 'env.HOME', 'job.kind']);
    expect(
      renderTemplate(template, lookup({ a: '1', b: '2', 'env.HOME': '/h', 'job.kind': 'image' })),
    ).toEqual({
      ok: true,
      text: '1-2-/h-image',
    });
  });

  it('renders one compiled template many times with different values', () => {
    const template = compile('hero-{{ product }}');
    const texts = ['latte', 'mocha'].map((product) => renderTemplate(template, lookup({ product })));
    expect(texts).toEqual([
      { ok: true, text: 'hero-latte' },
      { ok: true, text: 'hero-mocha' },
    ]);
  });

  it('reports every undefined name once instead of rendering an empty string', () => {
    const template = compile('{{ a }} {{ missing }} {{ missing }} {{ env.NOPE }}');
    expect(renderTemplate(template, lookup({ a: 'x' }))).toEqual({
      ok: false,
      missing: ['missing', 'env.NOPE'],
    });
  });

  it('turns \\{{ into a literal {{ and keeps other backslashes', () => {
    const template = compile('a \\{{ b }} c\\d {{ x }}');
    expect(renderTemplate(template, lookup({ x: 'X' }))).toEqual({ ok: true, text: 'a {{ b }} c\\d X' });
  });

  it('does not claim a "}}" is missing when there is one, for {{{ name }}} and braces inside', () => {
    expect(compileTemplate('a {{{ size }}} b')).toEqual({
      ok: false,
      message:
        '"{{{" at character 3: a template is exactly {{ name }}; to put braces around a value write "{ {{ name }} }"',
      offset: 2,
    });
    expect(compileTemplate('a {{ x{y} }} b')).toEqual({
      ok: false,
      message: '"{{" at character 3 is followed by "{" or "}" before its "}}"; expected {{ name }}',
      offset: 2,
    });
  });

  it('reports unclosed and malformed references with their position', () => {
    expect(compileTemplate('A {{ cat')).toEqual({
      ok: false,
      message: '"{{" at character 3 has no matching "}}"',
      offset: 2,
    });
    expect(compileTemplate('x {{ a b }}')).toMatchObject({ ok: false, offset: 2 });
    expect(compileTemplate('{{ }}')).toMatchObject({ ok: false, offset: 0 });
    expect(compileTemplate('{{ a..b }}')).toMatchObject({ ok: false });
    expect(compileTemplate('{{ -a }}')).toMatchObject({ ok: false });
    // Dotted paths into matrix map values and hyphenated keys are names (GitHub Actions style).
    expect(compileTemplate('{{ a.b.c }} {{ node-version }}')).toMatchObject({ ok: true });
  });

  it('leaves a lone }} alone', () => {
    expect(renderTemplate(compile('a }} b'), lookup({}))).toEqual({ ok: true, text: 'a }} b' });
  });
});

describe('template properties', () => {
  it('rendering a string without {{ is the identity', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes('{{')),
        (source) => {
          expect(hasTemplate(source)).toBe(false);
          expect(renderTemplate(compile(source), () => undefined)).toEqual({ ok: true, text: source });
        },
      ),
    );
  });

  const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
  const literal = fc.string().filter((s) => !s.includes('{') && !s.includes('}') && !s.includes('\\'));
  const value = fc.string().filter((s) => !s.includes('{{'));

  it('rendering with every name defined never leaves {{', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(literal, name)),
        literal,
        fc.dictionary(name, value),
        (pieces, tail, extra) => {
          const source = pieces.map(([text, n]) => `${text}{{ ${n} }}`).join('') + tail;
          const values: Record<string, string> = { ...extra };
          for (const [, n] of pieces) values[n] ??= 'v';
          const result = renderTemplate(compile(source), lookup(values));
          expect(result.ok).toBe(true);
          if (result.ok) expect(result.text.includes('{{')).toBe(false);
        },
      ),
    );
  });
});
