import { describe, expect, it } from 'vitest';
import { planIdentity } from '../../../src/plan/plan-identity.js';

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
