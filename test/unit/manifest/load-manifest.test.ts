import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifest } from '../../../src/manifest/load-manifest.js';
import { loadInline } from './helpers.js';

const source = `version: 1
name: loc
jobs:
  - id: a
    model: m
    params:
      dpi: 300
`;

describe('loadManifest', () => {
  it('reads a file and resolves its directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-load-'));
    const file = join(dir, 'p.yaml');
    writeFileSync(file, `\uFEFF${source}`);
    const { loaded, issues } = await loadManifest(file);
    expect(issues).toEqual([]);
    expect(loaded?.dir).toBe(dir);
    expect(loaded?.file).toBe(file);
    expect(loaded?.manifest.jobs[0]?.params).toEqual({ dpi: 300 });
  });

  it('returns no manifest when there is any error', async () => {
    const { loaded, issues } = await loadManifest('x.yaml', { source: 'version: 1\n' });
    expect(loaded).toBeUndefined();
    expect(issues.map((issue) => issue.code)).toEqual(['missing-key', 'missing-key']);
  });

  it('accepts the source as bytes and checks their encoding', async () => {
    const { issues } = await loadManifest('x.yaml', { source: Uint8Array.from([0x76, 0xff]) });
    expect(issues.map((issue) => [issue.code, issue.location])).toEqual([
      ['invalid-encoding', { file: 'x.yaml', line: 1, col: 2 }],
    ]);
  });

  it('treats a directory as not found', async () => {
    const { issues } = await loadManifest(tmpdir());
    expect(issues.map((issue) => issue.code)).toEqual(['file-not-found']);
  });
});

describe('LoadedManifest.locate', () => {
  it('finds values, list items and keys', async () => {
    const loaded = await loadInline(source, 'p.yaml');
    expect(loaded.locate([])).toEqual({ file: 'p.yaml', line: 1, col: 1 });
    expect(loaded.locate(['jobs', 0])).toEqual({ file: 'p.yaml', line: 4, col: 5 });
    expect(loaded.locate(['jobs', 0, 'params', 'dpi'])).toEqual({ file: 'p.yaml', line: 7, col: 12 });
    expect(loaded.locateKey?.(['jobs', 0, 'params', 'dpi'])).toEqual({ file: 'p.yaml', line: 7, col: 7 });
  });

  it('walks up to the nearest existing parent for a missing path', async () => {
    const loaded = await loadInline(source, 'p.yaml');
    expect(loaded.locate(['jobs', 0, 'params', 'nope', 3])).toEqual({ file: 'p.yaml', line: 7, col: 7 });
    expect(loaded.locate(['jobs', 5, 'id'])).toEqual({ file: 'p.yaml', line: 4, col: 3 });
  });
});
