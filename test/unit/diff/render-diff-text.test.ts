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

describe('renderDiffText catalogs', () => {
  it('says when a side fetched its catalog from the service in UTC words, not ISO', () => {
    const diff = diffOf([manyJobsManifest('a.yaml', 2, (i) => `j${i}`)]);
    const fetched = { source: 'service' as const, fetchedAt: '2026-11-27T07:00:17.393Z', pricesHash: 'same' };
    const text = renderDiffText(
      { ...diff, catalogs: { ...diff.catalogs, base: fetched, head: fetched } },
      { color: false, width: 120 },
    );
    expect(text).toContain(
      'Catalogs: base service fetched 27 Nov 2026, 07:00 UTC (prices same); head service fetched 27 Nov 2026, 07:00 UTC (prices same)',
    );
  });
});
