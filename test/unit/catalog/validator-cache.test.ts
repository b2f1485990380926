import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONFIG_AJV_OPTIONS } from '../../../src/catalog/config-ajv-options.js';
import type { Model } from '../../../src/service/types.js';
import { makeCatalog } from './fixtures.js';

/**
 * `compileModelConfig` as a new process of the runner sees it: fresh module state (no validator in
 * memory), the validator cache pointed at `dir` (or none), as the CLI does at start.
 */
async function freshProcess(dir: string | undefined) {
  vi.resetModules();
  const cache = await import('../../../src/catalog/validator-cache.js');
  const { compileModelConfig } = await import('../../../src/catalog/config-schema.js');
  cache.useValidatorCache(dir);
  return compileModelConfig;
}

function fluxPro(): Model {
  const found = makeCatalog().find((m) => m.slug === 'flux-pro');
  if (found === undefined) throw new Error('flux-pro is missing from the fixtures');
  return found;
}

/** A cache file as the runner writes it: a checksum line over the code, then the code. */
function cacheFileText(code: string): string {
  const digest = createHash('sha256').update(code).digest('hex');
  return `// mediagen-runner config validator sha256:${digest}\n${code}`;
}

/** Params with four problems at once: wrong option, out of range, empty upload, unknown name. */
const BAD_PARAMS = { style: 'oil', numImages: 9, mask: '', extra: true };

describe('the model-config validator cache', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-validator-cache-'));
  });
  afterEach(async () => {
    vi.resetModules();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps each config’s validator in the folder, and a later process runs the kept code', async () => {
    const first = await freshProcess(dir);
    expect(first(fluxPro()).validate({ style: 'photo' })).toBe(true);
    const [name, ...others] = await readdir(dir);
    expect(others).toEqual([]);
    expect(name).toMatch(/^[0-9a-f]{64}\.cjs$/);

    // Replace the kept code with a validator that refuses everything: the next process must run it.
    const refuseAll =
      "'use strict';module.exports = function validate() { validate.errors = [{ keyword: 'kept' }]; return false; };";
    await writeFile(join(dir, name!), cacheFileText(refuseAll));
    const { validate } = (await freshProcess(dir))(fluxPro());
    expect(validate({ style: 'photo' })).toBe(false);
    expect(validate.errors).toEqual([{ keyword: 'kept' }]);
  });

  it('ignores a file changed after it was written, and writes it again', async () => {
    (await freshProcess(dir))(fluxPro());
    const [name] = await readdir(dir);
    const file = join(dir, name!);
    const written = await readFile(file, 'utf8');
    expect(written).toContain('"photo"');
    await writeFile(file, written.replace('"photo"', '"phot0"'));

    const { validate } = (await freshProcess(dir))(fluxPro());
    expect(validate({ style: 'photo' })).toBe(true);
    expect(validate({ style: 'phot0' })).toBe(false);
    expect(await readFile(file, 'utf8')).toBe(written);
  });

  it('gives the errors ajv gives, whether the validator was kept, just made, or made without a folder', async () => {
    const compiled = (await freshProcess(undefined))(fluxPro());
    const reference = new Ajv(CONFIG_AJV_OPTIONS).compile(compiled.schema);
    expect(reference(BAD_PARAMS)).toBe(false);
    expect(reference.errors).toHaveLength(4);

    const inMemory = compiled.validate;
    const justMade = (await freshProcess(dir))(fluxPro()).validate;
    const kept = (await freshProcess(dir))(fluxPro()).validate;
    for (const validate of [inMemory, justMade, kept]) {
      expect(validate(BAD_PARAMS)).toBe(false);
      expect(validate.errors).toEqual(reference.errors);
    }
    expect(await readdir(dir)).toHaveLength(1);
  });

  it('without a folder, or with one it cannot use, validates in memory and writes nothing', async () => {
    const notAFolder = join(dir, 'file');
    await writeFile(notAFolder, '');
    expect((await freshProcess(notAFolder))(fluxPro()).validate({ style: 'anime' })).toBe(true);

    const noFolder = await freshProcess(undefined);
    expect(noFolder(fluxPro()).validate({ style: 'anime' })).toBe(true);
    expect(await readdir(dir)).toEqual(['file']);
  });

  it.skipIf(process.platform === 'win32')('does not run code from a folder others may write to', async () => {
    const shared = join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o777);
    expect((await freshProcess(shared))(fluxPro()).validate({ style: 'anime' })).toBe(true);
    expect(await readdir(shared)).toEqual([]);

    await chmod(shared, 0o700);
    (await freshProcess(shared))(fluxPro());
    expect(await readdir(shared)).toHaveLength(1);
  });

  it('keeps out a config JSON cannot spell, and still checks it exactly', async () => {
    // 1e400 reads as Infinity, which ajv's printed code would turn into null.
    const config = JSON.parse(
      '{ "strength": { "type": "select", "label": "Strength", "options": [{ "value": 1e400 }] } }',
    ) as NonNullable<Model['config']>;
    const odd: Model = { slug: 'odd', displayName: 'Odd', category: 'image', creditCost: 1, config };
    const { validate } = (await freshProcess(dir))(odd);
    expect(validate({ strength: Infinity })).toBe(true);
    expect(validate({ strength: null })).toBe(false);
    expect(await readdir(dir)).toEqual([]);
  });

  it('removes files not written for 30 days when it writes a new one', async () => {
    const old = join(dir, `${'a'.repeat(64)}.cjs`);
    const recent = join(dir, `${'b'.repeat(64)}.cjs`);
    const leftByCrash = join(dir, `${'c'.repeat(64)}.cjs.123.tmp`);
    for (const file of [old, recent, leftByCrash]) await writeFile(file, '');
    const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000);
    await utimes(old, daysAgo(31), daysAgo(31));
    await utimes(leftByCrash, daysAgo(31), daysAgo(31));
    await utimes(recent, daysAgo(29), daysAgo(29));

    (await freshProcess(dir))(fluxPro());
    const names = await readdir(dir);
    expect(names).toHaveLength(2);
    expect(names).toContain(`${'b'.repeat(64)}.cjs`);
  });
});
