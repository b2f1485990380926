import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { dirname, join, resolve } from 'node:path';
import { buildOutputName, resolveOutputPath, sniffExtension } from '../../../src/execute/output-path.js';

describe('buildOutputName', () => {
  it('names results <id>.ext, <id>-2.ext with the extension from the URL or the kind', () => {
    expect(buildOutputName('cat-1', 0, 'https://r.test/a/b.png?sig=1', 'image')).toBe('cat-1.png');
    expect(buildOutputName('cat-1', 1, 'https://r.test/a/b.JPEG', 'image')).toBe('cat-1+2.jpg');
    expect(buildOutputName('cat-1', 0, 'https://r.test/a/b', 'image')).toBe('cat-1.png');
    expect(buildOutputName('clip', 0, 'https://r.test/x.exe', 'stock-video')).toBe('clip.mp4');
    expect(buildOutputName('clip', 0, 'not a url', 'render-video')).toBe('clip.mp4');
  });

  it('never gives two jobs the same file, even when reducing the id changes it', () => {
    const names = ['a b', 'a_b', 'a?b', 'cat', 'cat-2', 'cat+2', 'Hero', 'hero', 'HERO'].flatMap((id) =>
      [0, 1].map((index) => buildOutputName(id, index, 'https://r.test/x.png', 'image')),
    );
    // Unique even where the file system ignores case (macOS, Windows).
    expect(new Set(names.map((name) => name.toLowerCase())).size).toBe(names.length);
    expect(buildOutputName('Hero', 0, 'https://r.test/x.png', 'image')).toMatch(/^Hero~[0-9a-f]{8}\.png$/);
    expect(buildOutputName('a b', 0, 'https://r.test/x.png', 'image')).toMatch(/^a_b~[0-9a-f]{8}\.png$/);
  });

  it('never lets an id escape the output folder', () => {
    const out = resolve('/tmp/out');
    fc.assert(
      fc.property(fc.string(), fc.nat({ max: 5 }), (id, index) => {
        const path = resolveOutputPath(out, buildOutputName(id, index, 'https://r.test/x.png', 'image'));
        return dirname(path) === out;
      }),
      { numRuns: 1000 },
    );
    for (const id of ['../../etc/passwd', '..', '.', '/abs', 'a/../../b', '\\..\\x', '']) {
      expect(dirname(resolveOutputPath(out, buildOutputName(id, 0, 'u', 'image')))).toBe(out);
    }
  });

  it('refuses a name that resolves outside the folder', () => {
    expect(() => resolveOutputPath('/tmp/out', '../x.png')).toThrow(/outside the output folder/);
    expect(() => resolveOutputPath('/tmp/out', '.')).toThrow(/outside/);
    expect(resolveOutputPath('/tmp/out', 'a.png')).toBe(join('/tmp/out', 'a.png'));
  });
});

describe('sniffExtension', () => {
  it('recognises common media by their first bytes', () => {
    const bytes = (...values: (number | string)[]) =>
      new Uint8Array(
        values.flatMap((value) =>
          typeof value === 'string' ? [...value].map((c) => c.charCodeAt(0)) : [value],
        ),
      );
    expect(sniffExtension(bytes(0x89, 'PNG', 0x0d, 0x0a))).toBe('.png');
    expect(sniffExtension(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('.jpg');
    expect(sniffExtension(bytes('RIFF', 0, 0, 0, 0, 'WEBP'))).toBe('.webp');
    expect(sniffExtension(bytes('GIF89a'))).toBe('.gif');
    expect(sniffExtension(bytes(0, 0, 0, 0x20, 'ftypisom'))).toBe('.mp4');
    expect(sniffExtension(bytes('hello world'))).toBeUndefined();
    expect(buildOutputName('a', 0, 'https://r.test/blob', 'image', '.jpg')).toBe('a.jpg');
    expect(buildOutputName('a', 0, 'https://r.test/x.webp', 'image', '.jpg')).toBe('a.webp');
  });
});
