import { describe, expect, it } from 'vitest';
import { checkGuardrails } from '../../../src/diff/guardrails.js';
import { delta, diffOf, manyJobsManifest } from './cost-diff-fixtures.js';

/** #33.7: a limit counts in the unit written after it; a bare one says which it used. */
describe('checkGuardrails units', () => {
  const nightly = (path: string) => ({
    ...manyJobsManifest(path, 2, (i) => `j${i}`),
    schedule: { label: 'nightly', runsPerMonth: 30 },
    perMonth: delta(300, 1_500),
  });
  const twoNightly = () => {
    const diff = diffOf([nightly('a.yaml'), nightly('b.yaml')]);
    diff.total = delta(10, 50);
    diff.totalPerMonth = delta(300, 1_500);
    return diff;
  };

  it('counts /night and /run per run, /month per month, a bare limit per month when all are scheduled', () => {
    const diff = twoNightly();
    expect(checkGuardrails(diff, { increase: 100, increasePer: 'night' })[0]).toMatchObject({
      per: 'night',
      actual: 40,
      crossed: false,
      message: 'adds 40 credits per night; the limit is 100 per night',
    });
    expect(checkGuardrails(diff, { increase: 100, increasePer: 'run' })[0]).toMatchObject({
      per: 'night',
      actual: 40,
    });
    expect(checkGuardrails(diff, { increase: 100, increasePer: 'month' })[0]).toMatchObject({
      per: 'month',
      actual: 1_200,
      crossed: true,
    });
    expect(checkGuardrails(diff, { increase: 100 })[0]?.message).toBe(
      'adds 1,200 credits per month; the limit is 100 per month (a bare limit counts per month when every manifest has a schedule; --fail-on-increase 100/night counts per night)',
    );
  });

  it('refuses a unit the diff cannot count in', () => {
    const diff = twoNightly();
    expect(() => checkGuardrails(diff, { increasePercent: 5, increasePercentPer: 'week' })).toThrow(
      '--fail-on-increase-percent 5/week: the manifests run once a night: use 5/night',
    );
    const unscheduled = diffOf([manyJobsManifest('a.yaml', 2, (i) => `j${i}`)]);
    expect(() => checkGuardrails(unscheduled, { increase: 5, increasePer: 'month' })).toThrow(
      'cannot be counted per month; use 5/run',
    );
    expect(() => checkGuardrails(unscheduled, { increase: 5, increasePer: 'night' })).toThrow(
      'the manifests do not all run on one schedule',
    );
  });
});
