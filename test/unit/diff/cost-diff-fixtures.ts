import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CostDiff, CreditDelta, ManifestDiff } from '../../../src/diff/cost-diff.js';

/** Where the cost diff fixtures and their rendered goldens live. */
export const FIXTURES = fileURLToPath(new URL('../../fixtures/cost-diff/', import.meta.url));

/**
 * A real-looking pull request's diff (test/fixtures/cost-diff/pull-request.json): five manifests, one
 * changed by a new axis value (style: neon), a model switch (flux-schnell → flux-pro), `numImages`
 * raised and a renamed job; one changed only by a catalog price change (kling-2: 100 → 120); one
 * added, one removed, one unchanged; nightly, weekly and unscheduled; the 200-credit guardrail crossed.
 */
export function pullRequestDiff(): CostDiff {
  return JSON.parse(readFileSync(`${FIXTURES}pull-request.json`, 'utf8')) as CostDiff;
}

/** A delta with its percentage, as the diff computes it. */
export function delta(base: number, head: number): CreditDelta {
  const d = Math.round((head - base) * 1e6) / 1e6;
  return { base, head, delta: d, percent: base === 0 ? null : Math.round((d / base) * 1000) / 10 };
}

/** One changed manifest with `jobs` changed jobs of `credits` base → head each (no schedule). */
export function manyJobsManifest(path: string, jobs: number, id: (index: number) => string): ManifestDiff {
  const changed = Array.from({ length: jobs }, (_, index) => ({
    id: id(index),
    baseModel: 'seedream-3',
    headModel: 'seedream-3',
    credits: delta(20, 40),
    changed: ['params.numImages'],
  }));
  return {
    path,
    pipeline: 'big',
    change: 'changed',
    schedule: null,
    perRun: delta(20 * jobs, 40 * jobs),
    perMonth: null,
    counts: { base: jobs, head: jobs, added: 0, removed: 0, changed: jobs, renamed: 0, unchanged: 0 },
    jobs: { added: [], removed: [], changed, renamed: [] },
    byModel: [{ ...delta(20 * jobs, 40 * jobs), jobs: { base: jobs, head: jobs }, model: 'seedream-3' }],
    byAxisValue: [],
  };
}

/** A diff of the given manifests, totals summed, same prices, no guardrails. */
export function diffOf(manifests: ManifestDiff[]): CostDiff {
  const base = manifests.reduce((sum, m) => sum + m.perRun.base, 0);
  const head = manifests.reduce((sum, m) => sum + m.perRun.head, 0);
  const catalog = { source: 'file' as const, path: 'catalog.json', pricesHash: 'same' };
  return {
    kind: 'runner-cost-diff',
    schemaVersion: 1,
    total: delta(base, head),
    totalPerMonth: null,
    catalogs: { base: catalog, head: catalog, samePrices: true, priceChanges: [] },
    manifests,
    guardrails: [],
  };
}
