import { describe, expect, it } from 'vitest';
import { readDiffSide } from '../../../src/diff/plan-document.js';
import { changedPaths } from '../../../src/diff/changed-paths.js';
import { axisValueLabel } from '../../../src/diff/axis-label.js';
import { checkGuardrails } from '../../../src/diff/guardrails.js';
import { computeCostDiff } from '../../../src/diff/compute-diff.js';
import { expandManifestArgs } from '../../../src/app/plan-set.js';
import { priceRule } from '../../../src/plan/catalog-prices.js';
import { readSchedule } from '../../../src/plan/schedule.js';

const job = {
  id: 'a',
  kind: 'image',
  model: 'm',
  credits: 2,
  state: 'new',
  toRun: true,
  coveredBySubscription: false,
  matrixValues: {},
  payloadHash: 'h',
  prompt: 'p',
  paramsRef: 0,
};
const report = {
  schemaVersion: 1,
  pipeline: 'p',
  manifestFile: 'p.yaml',
  credits: { total: 2 },
  jobList: [job],
  diffVersion: 1,
  catalog: { source: 'file', path: 'c.json', pricesHash: 'x', prices: { m: '2 credits per job' } },
  schedule: null,
  paramSets: [{ numImages: 1 }],
};

describe('readDiffSide', () => {
  it('reads a single plan report and a plan set', () => {
    const single = readDiffSide(JSON.stringify(report), 'a.json');
    expect(single.plans[0]?.jobs[0]).toMatchObject({ id: 'a', params: { numImages: 1 }, payloadHash: 'h' });
    const set = readDiffSide(
      JSON.stringify({ kind: 'runner-plan-set', schemaVersion: 1, plans: [report, report] }),
      's.json',
    );
    expect(set.plans).toHaveLength(2);
  });

  it.each([
    ['not JSON', '{', 'x.json: is not JSON'],
    ['a list', '[]', 'x.json: is not a runner plan report'],
    ['a cost diff', '{"kind":"runner-cost-diff"}', 'x.json: is a cost diff'],
    [
      'an older report',
      JSON.stringify({ ...report, diffVersion: undefined }),
      'x.json: diffVersion is missing',
    ],
    [
      'a newer plan set',
      '{"kind":"runner-plan-set","schemaVersion":2,"plans":[]}',
      'x.json: is a plan set of version 2',
    ],
    [
      'a wrong job',
      JSON.stringify({ ...report, jobList: [{ ...job, credits: 'two' }] }),
      'x.json: jobList[0].credits is not a number',
    ],
    [
      'a dangling paramsRef',
      JSON.stringify({ ...report, jobList: [{ ...job, paramsRef: 3 }] }),
      'x.json: jobList[0].paramsRef is not an index',
    ],
  ])('refuses %s, naming the file and the field', (_, text, message) => {
    expect(() => readDiffSide(text, 'x.json')).toThrow(message);
    try {
      readDiffSide(text, 'x.json');
    } catch (error) {
      expect((error as { code: string }).code).toBe('INVALID_INPUT');
    }
  });
});

describe('the diff helpers', () => {
  it('changedPaths follows maps and keeps a list and a local file whole', () => {
    const file = (sha256: string) => ({ file: './logo.png', sha256 });
    expect(
      changedPaths(
        {
          kind: 'image',
          model: 'a',
          prompt: 'x',
          params: { s: { p: 1, q: 1 }, refs: [1], logo: file('1'), gone: 1 },
        },
        {
          kind: 'image',
          model: 'b',
          prompt: 'y',
          params: { s: { p: 2, q: 1 }, refs: [2], logo: file('2'), added: 1 },
        },
      ),
    ).toEqual(['model', 'prompt', 'params.added', 'params.gone', 'params.logo', 'params.refs', 'params.s.p']);
  });

  it('axisValueLabel reads a map by its name, else key=value, cut to 60', () => {
    expect(axisValueLabel({ name: 'square', ratio: '1:1' })).toBe('square');
    expect(axisValueLabel({ w: 1, h: 2 })).toBe('w=1 h=2');
    expect(axisValueLabel(['a', 'b'])).toBe('a, b');
    expect(axisValueLabel('x'.repeat(80))).toHaveLength(60);
  });

  it('priceRule names the cost and its multipliers with their defaults', () => {
    expect(priceRule({ creditCost: 4, config: {} })).toBe('4 credits per job');
    expect(
      priceRule({
        creditCost: '1',
        config: { n: { type: 'number', creditCostMultiplier: true, default: 2 } },
      }),
    ).toBe('1 credit per job × n (default 2)');
    expect(priceRule({ creditCost: -1, config: null })).toBe('no usable price (-1)');
  });

  it('readSchedule gives runs per month', () => {
    expect(readSchedule('nightly')).toEqual({ label: 'nightly', runsPerMonth: 30 });
    expect(readSchedule('weekly').runsPerMonth).toBe(4.35);
    expect(readSchedule('hourly').runsPerMonth).toBe(720);
    expect(readSchedule({ runsPerMonth: 12 })).toEqual({ label: '12 per month', runsPerMonth: 12 });
  });

  it('guardrails: crossed strictly above the limit, per run without schedules; a free base counts as +100 %', () => {
    const side = (credits: number) =>
      readDiffSide(JSON.stringify({ ...report, credits: { total: credits } }), 's.json');
    const diff = computeCostDiff(side(10), side(15));
    expect(checkGuardrails(diff, { increase: 5, increasePercent: 49 })).toEqual([
      {
        limit: 'increase',
        threshold: 5,
        per: 'run',
        actual: 5,
        crossed: false,
        message: 'adds 5 credits per run; the limit is 5 per run',
      },
      {
        limit: 'increase-percent',
        threshold: 49,
        per: 'run',
        actual: 50,
        crossed: true,
        message: '+50 % per run; the limit is 49 %',
      },
    ]);
    const fromNothing = computeCostDiff({ file: 'b', plans: [] }, side(3));
    expect(checkGuardrails(fromNothing, { increasePercent: 99 })[0]).toMatchObject({
      actual: 100,
      crossed: true,
    });
  });

  it('expandManifestArgs expands * and ? in the file name, sorted, once each; a glob matching nothing is an error', async () => {
    const disk = {
      readdir: (dir: string) => Promise.resolve(dir === 'pipelines' ? ['b.yaml', 'a.yaml', 'notes.md'] : []),
      exists: (file: string) => Promise.resolve(file !== 'gone.yaml'),
      allowEmpty: false,
    };
    await expect(
      expandManifestArgs(['pipelines/*.yaml', 'pipelines/a.yaml', 'x.yaml'], disk),
    ).resolves.toEqual({ files: ['pipelines/a.yaml', 'pipelines/b.yaml', 'x.yaml'], unmatched: [] });
    await expect(expandManifestArgs(['none/*.yaml'], disk)).rejects.toThrow(
      'none/*.yaml: no manifest matches this glob',
    );
    await expect(expandManifestArgs(['*/a.yaml'], disk)).rejects.toThrow('in the file name only');
  });

  it('expandManifestArgs with allowEmpty: a glob matching nothing and a missing named file name no manifest (#33.5)', async () => {
    const disk = {
      readdir: (dir: string) => Promise.resolve(dir === 'pipelines' ? ['a.yaml'] : []),
      exists: (file: string) => Promise.resolve(file !== 'gone.yaml'),
      allowEmpty: true,
    };
    await expect(expandManifestArgs(['none/*.yaml', 'gone.yaml', 'pipelines/*.yaml'], disk)).resolves.toEqual(
      {
        files: ['pipelines/a.yaml'],
        unmatched: ['none/*.yaml', 'gone.yaml'],
      },
    );
    await expect(expandManifestArgs(['*/a.yaml'], disk)).rejects.toThrow('in the file name only');
  });
});
