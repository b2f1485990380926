import { relative, sep } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { relativePath } from '../../../src/report/results-index.js';

describe('relativePath', () => {
  it('gives what path.relative gives, with / separators, whatever the two paths', () => {
    const segment = fc.constantFrom('out', 'a b', 'é', '.', '..', '', 'x.png', 'out.png', 'o');
    const path = fc
      .tuple(fc.boolean(), fc.array(segment, { maxLength: 5 }))
      .map(([absolute, parts]) => `${absolute ? sep : ''}${parts.join(sep)}`);
    // A results folder and files in it or below it (the common case), or any two paths.
    const below = fc
      .tuple(path, fc.array(segment, { minLength: 1, maxLength: 3 }))
      .map(([dir, parts]) => [dir, `${dir}${sep}${parts.join(sep)}`] as const);
    fc.assert(
      fc.property(fc.oneof(below, fc.tuple(path, path)), ([fromDir, file]) => {
        expect(relativePath(fromDir, file)).toBe(relative(fromDir, file).split(sep).join('/'));
      }),
      { numRuns: 2000 },
    );
  });

  it('names a file in the folder by its name', () => {
    expect(relativePath(`${sep}runs${sep}out`, `${sep}runs${sep}out${sep}a b.png`)).toBe('a b.png');
    expect(relativePath(`${sep}runs${sep}out`, `${sep}runs${sep}out${sep}sub${sep}x.png`)).toBe('sub/x.png');
  });
});
