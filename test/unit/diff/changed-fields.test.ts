import { describe, expect, it } from 'vitest';
import { changedFields, MAX_VALUE_CHARS } from '../../../src/diff/changed-paths.js';
import { renderDiffMarkdown } from '../../../src/diff/render-diff-markdown.js';
import { renderDiffText } from '../../../src/diff/render-diff-text.js';
import { diffOf, manyJobsManifest } from './cost-diff-fixtures.js';

const payload = (over: { model?: string; prompt?: string; params?: Record<string, unknown> }) => ({
  kind: 'image',
  model: over.model ?? 'a',
  prompt: over.prompt,
  params: over.params ?? {},
});

/** #33.8: the diff says what a changed field was and became, not only its name. */
describe('changedFields', () => {
  it('gives each changed field its values: numbers, names, lists, files, absent', () => {
    expect(
      changedFields(
        payload({ params: { numImages: 1, refs: ['x'], logo: { file: 'a.png', sha256: '1' }, gone: true } }),
        payload({
          model: 'b',
          params: { numImages: 3, refs: ['x', 'y'], logo: { file: 'b.png', sha256: '2' } },
        }),
      ),
    ).toEqual([
      { path: 'model', base: 'a', head: 'b' },
      { path: 'params.gone', base: 'true', head: null },
      { path: 'params.logo', base: 'a.png', head: 'b.png' },
      { path: 'params.numImages', base: '1', head: '3' },
      { path: 'params.refs', base: '["x"]', head: '["x","y"]' },
    ]);
  });

  it('cuts long values with an ellipsis around where they differ', () => {
    const start = 'A watercolor advertisement of a latte on a wooden table, ';
    const [change] = changedFields(
      payload({ prompt: `${start}at dawn, with steam rising from the cup` }),
      payload({ prompt: `${start}at dusk, with steam rising from the cup` }),
    );
    expect(change?.base).toBe('… table, at dawn, with steam rising fro…');
    expect(change?.head).toBe('… table, at dusk, with steam rising fro…');
    expect([...(change?.base ?? '')].length).toBe(MAX_VALUE_CHARS);
  });

  it('keeps a redacted secret redacted', () => {
    const [change] = changedFields(
      payload({ params: { note: 'key [REDACTED]' } }),
      payload({ params: { note: 'key [REDACTED] again' } }),
    );
    expect(change).toEqual({ path: 'params.note', base: 'key [REDACTED]', head: 'key [REDACTED] again' });
  });

  it('shows the values in the text and, as code spans, in the comment', () => {
    const manifest = manyJobsManifest('a.yaml', 1, () => 'hero');
    const [job] = manifest.jobs.changed;
    if (job === undefined) throw new Error('no job');
    job.changed = ['params.numImages', 'params.style'];
    job.changes = [
      { path: 'params.numImages', base: '1', head: '3' },
      { path: 'params.style', base: 'a|b', head: null },
    ];
    const diff = diffOf([manifest]);
    expect(renderDiffText(diff, { color: false, width: 200 })).toContain(
      'params.numImages 1 → 3, params.style a|b → (none)',
    );
    expect(renderDiffMarkdown(diff)).toContain(
      '| params.numImages `1` → `3`, params.style `a\\|b` → (none) |',
    );
    // A diff of an older release names the paths alone.
    delete job.changes;
    expect(renderDiffText(diffOf([manifest]), { color: false, width: 200 })).toContain(
      'params.numImages, params.style',
    );
  });
});
