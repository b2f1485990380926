import { describe, expect, it } from 'vitest';
import { planIdentity } from '../../../src/plan/plan-identity.js';
import { describePlanDifference } from '../../../src/state/plan-agreement.js';

const plan = (pipeline: string, jobs: [string, string][]) => ({
  pipeline,
  jobs: jobs.map(([id, payloadHash]) => ({ id, payloadHash })) as never,
});

describe('planIdentity', () => {
  it('is the same for the same jobs and payloads, and differs when any of them differs', () => {
    const base = planIdentity(
      plan('p', [
        ['a', 'h1'],
        ['b', 'h2'],
      ]),
    );
    expect(
      planIdentity(
        plan('p', [
          ['a', 'h1'],
          ['b', 'h2'],
        ]),
      ),
    ).toBe(base);
    expect(
      planIdentity(
        plan('q', [
          ['a', 'h1'],
          ['b', 'h2'],
        ]),
      ),
    ).not.toBe(base);
    expect(
      planIdentity(
        plan('p', [
          ['a', 'h1'],
          ['b', 'h3'],
        ]),
      ),
    ).not.toBe(base);
    expect(planIdentity(plan('p', [['a', 'h1']]))).not.toBe(base);
    expect(
      planIdentity(
        plan('p', [
          ['b', 'h2'],
          ['a', 'h1'],
        ]),
      ),
    ).not.toBe(base);
    // An id with a space cannot pass for another job's id and hash.
    expect(planIdentity(plan('p', [['a h1', '']]))).not.toBe(planIdentity(plan('p', [['a', 'h1 ']])));
  });
});

describe('plan identity settings (#31.8)', () => {
  const jobs = plan('p', [['a', 'h1']]);
  const settings = { maxCredits: 50, replace: ['a'], retryFailed: false, resendUncertain: false };

  it('differs when the cap, the replacements or the re-sends differ, and names the flag', () => {
    const mine = planIdentity(jobs, settings);
    expect(planIdentity(jobs, { ...settings })).toBe(mine);
    const uncapped = planIdentity(jobs, { ...settings, maxCredits: undefined });
    expect(uncapped).not.toBe(mine);
    expect(describePlanDifference(uncapped, mine)).toBe(
      '--max-credits / the manifest budget (this apply: none, the other: 50)',
    );
    expect(describePlanDifference(planIdentity(jobs, { ...settings, replace: [] }), mine)).toBe(
      '--replace (this apply: none, the other: "a")',
    );
    expect(describePlanDifference(planIdentity(jobs, { ...settings, retryFailed: true }), mine)).toBe(
      '--retry-failed (this apply: given, the other: none)',
    );
    expect(describePlanDifference(planIdentity(jobs, { ...settings, resendUncertain: true }), mine)).toMatch(
      /^--resend-uncertain/,
    );
  });

  it('names no flag when the jobs differ, or the other identity was recorded by an older runner', () => {
    const mine = planIdentity(jobs, settings);
    expect(describePlanDifference(planIdentity(plan('p', [['b', 'h1']]), settings), mine)).toBeUndefined();
    expect(describePlanDifference('0f1e2d', mine)).toBeUndefined();
  });
});
