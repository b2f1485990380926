import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 34's quality bar: no hand-written source file over ~400 lines without a line in
 * ARCHITECTURE.md saying why. Generated code (`src/generated/`) is not hand-written.
 */
const ROOT = resolve(__dirname, '../..');
const MAX_LINES = 400;
const SECTION = '## Files over 400 lines, and why';

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The paths the section names at the start of its list items ("- `src/…`: why"). */
function namedInArchitecture(): Set<string> {
  const text = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf(SECTION);
  if (start < 0) return new Set();
  const end = text.indexOf('\n## ', start + SECTION.length);
  const section = text.slice(start, end < 0 ? undefined : end);
  return new Set([...section.matchAll(/^- `([^`]+)`: \S/gm)].map((match) => match[1]!));
}

function countLines(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('source file size', () => {
  it(`names in ARCHITECTURE.md every hand-written src/ file over ${MAX_LINES} lines`, () => {
    const named = namedInArchitecture();
    const unexplained = tsFiles(join(ROOT, 'src'))
      .map((file) => relative(ROOT, file).split(sep).join('/'))
      .filter((path) => !path.startsWith('src/generated/'))
      .map((path) => ({ path, lines: countLines(readFileSync(join(ROOT, path), 'utf8')) }))
      .filter(({ path, lines }) => lines > MAX_LINES && !named.has(path))
      .map(({ path, lines }) => `${path} (${lines} lines)`);
    // Each needs a line under "Files over 400 lines, and why", or a split.
    expect(unexplained).toEqual([]);
  });
});
