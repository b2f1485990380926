import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunnerError } from '../../../src/errors.js';
import { loadCatalog, parseCatalog } from '../../../src/catalog/load-catalog.js';
import { makeCatalog } from './fixtures.js';

function thrown(fn: () => unknown): RunnerError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RunnerError) return error;
    throw error;
  }
  throw new Error('expected a RunnerError');
}

describe('parseCatalog', () => {
  it('accepts a bare array and a { models } object', () => {
    const catalog = makeCatalog();
    expect(parseCatalog(JSON.stringify(catalog), 'c.json')).toEqual(catalog);
    expect(parseCatalog(JSON.stringify({ models: catalog }), 'c.json')).toEqual(catalog);
  });

  it("accepts the service's own response envelope (spec 2.1: { success, data: [...] }) saved with curl", () => {
    const catalog = makeCatalog();
    const envelope = { success: true, data: catalog, error: null, errorCode: null };
    expect(parseCatalog(JSON.stringify(envelope), 'c.json')).toEqual(catalog);
  });

  it("refuses a saved error envelope with the service's message", () => {
    const envelope = { success: false, error: 'Invalid API key', errorCode: 'UNAUTHORIZED' };
    const error = thrown(() => parseCatalog(JSON.stringify(envelope), 'c.json'));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toContain('Invalid API key');
  });

  it('explains bad JSON', () => {
    const error = thrown(() => parseCatalog('{"models": [', 'c.json'));
    expect(error.code).toBe('INVALID_INPUT');
    expect(error.message).toMatch(/^catalog file c\.json is not valid JSON: /);
    expect(error.hint).toContain('runner models --json');
  });

  it('explains the wrong shape', () => {
    expect(thrown(() => parseCatalog('{"items": []}', 'c.json')).message).toBe(
      'catalog file c.json has the wrong shape: expected an array of models or an object with a "models" or "data" array; received an object with keys "items"',
    );
    expect(thrown(() => parseCatalog('42', 'c.json')).message).toContain('received number');
  });

  it('names the first bad model entry', () => {
    const text = JSON.stringify([{ slug: 'a', displayName: 3, category: 'image', creditCost: 3 }]);
    expect(thrown(() => parseCatalog(text, 'c.json')).message).toBe(
      'catalog file c.json: model [0].displayName must be string; expected slug, displayName and category (strings)',
    );
  });

  it('keeps a model whose price is impossible: a job using it is refused, naming the model (#24.2)', () => {
    const models = [
      { slug: 'a', displayName: 'A', category: 'image', creditCost: -30 },
      { slug: 'b', displayName: 'B', category: 'image', creditCost: 'free' },
      { slug: 'c', displayName: 'C', category: 'image' },
    ];
    expect(parseCatalog(JSON.stringify(models), 'c.json').map((model) => model.creditCost)).toEqual([
      -30,
      'free',
      undefined,
    ]);
  });

  it('refuses a slug listed twice', () => {
    const model = { slug: 'a', displayName: 'A', category: 'image', creditCost: 1 };
    expect(thrown(() => parseCatalog(JSON.stringify([model, model]), 'c.json')).message).toBe(
      'catalog file c.json: model slug "a" appears more than once',
    );
  });
});

describe('loadCatalog', () => {
  const dir = mkdtempSync(join(tmpdir(), 'runner-catalog-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a saved catalog file', async () => {
    const file = join(dir, 'catalog.json');
    writeFileSync(file, JSON.stringify({ models: makeCatalog() }));
    expect((await loadCatalog(file)).map((m) => m.slug)).toContain('flux-pro');
  });

  it('explains a file that cannot be read', async () => {
    const file = join(dir, 'missing.json');
    await expect(loadCatalog(file)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: `cannot read catalog file ${file}: ENOENT`,
    });
  });
});
