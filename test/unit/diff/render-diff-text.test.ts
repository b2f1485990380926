import { describe, expect, it } from 'vitest';
import { renderDiffText } from '../../../src/diff/render-diff-text.js';
import { diffOf, manyJobsManifest } from './cost-diff-fixtures.js';

const render = (manifest: ReturnType<typeof manyJobsManifest>) =>
  renderDiffText(diffOf([manifest]), { color: false, width: 120 });

describe('renderDiffText', () => {
  const nightly = { label: 'nightly', runsPerMonth: 30 };
  const weekly = { label: 'weekly', runsPerMonth: 4.35 };
  const manifest = { ...manyJobsManifest('a.yaml', 2, (i) => `j${i}`), schedule: nightly };

  it('says how the change moved the schedule, since the monthly figures follow it', () => {
    expect(render({ ...manifest, scheduleBefore: null })).toContain(
      'a.yaml (big): changed, schedule added: nightly (30 runs a month)',
    );
    expect(render({ ...manifest, scheduleBefore: weekly })).toContain(
      'changed, schedule weekly (4.35 runs a month) → nightly (30 runs a month)',
    );
    expect(render({ ...manifest, schedule: null, scheduleBefore: weekly })).toContain(
      'changed, schedule removed (was weekly (4.35 runs a month))',
    );
    expect(render(manifest)).toContain('changed, nightly (30 runs a month)');
  });
});
