import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeCostDiff } from '../../../src/diff/compute-diff.js';
import type { DiffJob, DiffPlan, DiffSide } from '../../../src/diff/plan-document.js';
import type { PlanCatalog } from '../../../src/plan/cost-report.js';

const catalog: PlanCatalog = {
  source: 'file',
  path: 'catalog.json',
  pricesHash: 'p1',
  prices: { a: '1 credit per job' },
};

function job(id: string, over: Partial<DiffJob> = {}): DiffJob {
  return {
    id,
    kind: 'image',
    model: 'a',
    credits: 1,
    payloadHash: `hash-${id}`,
    prompt: `prompt ${id}`,
    params: {},
    matrixValues: {},
    ...over,
  };
}

function plan(manifestFile: string, jobs: DiffJob[], over: Partial<DiffPlan> = {}): DiffPlan {
  const total = jobs.reduce((sum, one) => sum + one.credits, 0);
  return {
    manifestFile,
    pipeline: manifestFile.replace(/\W/g, '-'),
    total,
    schedule: null,
    catalog,
    jobs,
    ...over,
  };
}

const side = (...plans: DiffPlan[]): DiffSide => ({ file: 'x.json', plans });

describe('computeCostDiff', () => {
  it('names what changed as dotted paths, and a same payload under a new id as a rename', () => {
    const base = side(
      plan('a.yaml', [
        job('one', { params: { numImages: 1, style: { palette: 'warm' } } }),
        job('two', { payloadHash: 'same' }),
        job('gone'),
      ]),
    );
    const head = side(
      plan('a.yaml', [
        job('one', {
          payloadHash: 'changed',
          credits: 2,
          params: { numImages: 2, style: { palette: 'cold' } },
        }),
        job('renamed-two', { payloadHash: 'same' }),
      ]),
    );
    const diff = computeCostDiff(base, head);
    const [manifest] = diff.manifests;
    expect(manifest?.jobs.changed).toEqual([
      {
        id: 'one',
        baseModel: 'a',
        headModel: 'a',
        credits: { base: 1, head: 2, delta: 1, percent: 100 },
        changed: ['params.numImages', 'params.style.palette'],
        // Each with its values (#33.8).
        changes: [
          { path: 'params.numImages', base: '1', head: '2' },
          { path: 'params.style.palette', base: 'warm', head: 'cold' },
        ],
      },
    ]);
    expect(manifest?.jobs.renamed).toEqual([
      { from: 'two', to: 'renamed-two', credits: { base: 1, head: 1, delta: 0, percent: 0 } },
    ]);
    expect(manifest?.jobs.removed).toEqual([{ id: 'gone', model: 'a', credits: 1 }]);
    expect(manifest?.jobs.added).toEqual([]);
    expect(manifest?.counts).toMatchObject({ added: 0, removed: 1, changed: 1, renamed: 1, unchanged: 0 });
  });

  it('pairs manifests by path, then by pipeline name (a base planned from another folder)', () => {
    const diff = computeCostDiff(
      side(plan('base/p/a.yaml', [job('x')], { pipeline: 'a' }), plan('old.yaml', [job('y')])),
      side(plan('p/a.yaml', [job('x')], { pipeline: 'a' }), plan('new.yaml', [job('z')])),
    );
    expect(diff.manifests.map((m) => [m.path, m.change])).toEqual([
      ['new.yaml', 'added'],
      ['old.yaml', 'removed'],
      ['p/a.yaml', 'unchanged'],
    ]);
  });

  it('a schedule added by the change counts both sides by it (no increase from nothing)', () => {
    const nightly = { label: 'nightly', runsPerMonth: 30 };
    const diff = computeCostDiff(
      side(plan('a.yaml', [job('x')])),
      side(plan('a.yaml', [job('x'), job('y')], { schedule: nightly })),
    );
    expect(diff.totalPerMonth).toEqual({ base: 30, head: 60, delta: 30, percent: 100 });
    expect(diff.manifests[0]!.scheduleBefore).toBeNull();
  });

  it('a change of the schedule alone is a change, with the schedule it had (the monthly figure moved)', () => {
    const nightly = { label: 'nightly', runsPerMonth: 30 };
    const weekly = { label: 'weekly', runsPerMonth: 4.35 };
    const diff = computeCostDiff(
      side(plan('a.yaml', [job('x')], { schedule: nightly })),
      side(plan('a.yaml', [job('x')], { schedule: weekly })),
    );
    const [manifest] = diff.manifests;
    expect(manifest!.change).toBe('changed');
    expect(manifest!.scheduleBefore).toEqual(nightly);
    expect(manifest!.perMonth).toEqual({ base: 30, head: 4.35, delta: -25.65, percent: -85.5 });
    const same = computeCostDiff(
      side(plan('a.yaml', [job('x')], { schedule: nightly })),
      side(plan('a.yaml', [job('x')], { schedule: nightly })),
    );
    expect(same.manifests[0]!.change).toBe('unchanged');
    expect(same.manifests[0]).not.toHaveProperty('scheduleBefore');
  });

  it('names the price changes of the models the plans use, and the delta they make alone', () => {
    const head: PlanCatalog = {
      ...catalog,
      pricesHash: 'p2',
      prices: { a: '2 credits per job', unused: '9 credits per job' },
    };
    const diff = computeCostDiff(
      side(plan('a.yaml', [job('x')])),
      side(plan('a.yaml', [job('x', { credits: 2 })], { catalog: head })),
    );
    expect(diff.catalogs.samePrices).toBe(false);
    expect(diff.catalogs.priceChanges).toEqual([
      { model: 'a', base: '1 credit per job', head: '2 credits per job' },
    ]);
    expect(diff.catalogs.priceDelta).toBe(1);
    expect(diff.manifests[0]?.jobs.changed[0]?.changed).toEqual([]);
  });

  const jobs = fc.uniqueArray(
    fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'),
      model: fc.constantFrom('m1', 'm2', 'm3'),
      credits: fc.integer({ min: 0, max: 40 }).map((n) => n / 4),
      payload: fc.constantFrom('p1', 'p2', 'p3', 'p4'),
      product: fc.constantFrom('latte', 'mocha'),
    }),
    { selector: (one) => one.id, maxLength: 8 },
  );
  const plans = fc.uniqueArray(
    fc.record({ file: fc.constantFrom('a.yaml', 'b.yaml', 'c.yaml'), jobs, monthly: fc.boolean() }),
    { selector: (one) => one.file, maxLength: 3 },
  );
  type GeneratedPlan = {
    file: string;
    jobs: { id: string; model: string; credits: number; payload: string; product: string }[];
    monthly: boolean;
  };
  const toSide = (list: GeneratedPlan[]): DiffSide =>
    side(
      ...list.map((one) =>
        plan(
          one.file,
          one.jobs.map((j) =>
            job(j.id, {
              model: j.model,
              credits: j.credits,
              payloadHash: j.payload,
              matrixValues: { product: j.product },
            }),
          ),
          { pipeline: one.file, schedule: one.monthly ? { label: 'weekly', runsPerMonth: 4.35 } : null },
        ),
      ),
    );

  it('property: the totals are the difference of the two plans’ totals; per model and per manifest they add up', () => {
    fc.assert(
      fc.property(plans, plans, (baseList, headList) => {
        const base = toSide(baseList);
        const head = toSide(headList);
        const diff = computeCostDiff(base, head);
        const total = (s: DiffSide) => s.plans.reduce((sum, p) => sum + p.total, 0);
        expect(diff.total.base).toBeCloseTo(total(base), 6);
        expect(diff.total.head).toBeCloseTo(total(head), 6);
        expect(diff.total.delta).toBeCloseTo(total(head) - total(base), 6);
        const manifestSum = diff.manifests.reduce((sum, m) => sum + m.perRun.delta, 0);
        expect(manifestSum).toBeCloseTo(diff.total.delta, 6);
        for (const manifest of diff.manifests) {
          const models = manifest.byModel.reduce((sum, g) => sum + g.delta, 0);
          expect(models).toBeCloseTo(manifest.perRun.delta, 6);
          const products = manifest.byAxisValue.filter((g) => g.axis === 'product');
          if (products.length > 0) {
            expect(products.reduce((sum, g) => sum + g.delta, 0)).toBeCloseTo(manifest.perRun.delta, 6);
          }
          const c = manifest.counts;
          expect(c.base).toBe(c.removed + c.changed + c.renamed + c.unchanged);
          expect(c.head).toBe(c.added + c.changed + c.renamed + c.unchanged);
          // Every job counted once: the listed ones add up to the per-run delta with the changed ones.
          const listed =
            manifest.jobs.added.reduce((s, j) => s + j.credits, 0) -
            manifest.jobs.removed.reduce((s, j) => s + j.credits, 0) +
            manifest.jobs.changed.reduce((s, j) => s + j.credits.delta, 0) +
            manifest.jobs.renamed.reduce((s, j) => s + j.credits.delta, 0);
          expect(listed).toBeCloseTo(manifest.perRun.delta, 6);
        }
        const monthly = diff.manifests.filter((m) => m.perMonth !== null);
        if (monthly.length === 0) expect(diff.totalPerMonth).toBeNull();
        else
          expect(diff.totalPerMonth?.delta).toBeCloseTo(
            monthly.reduce((s, m) => s + m.perMonth!.delta, 0),
            6,
          );
      }),
      { numRuns: 300 },
    );
  });
});
