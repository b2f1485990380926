import { describe, expect, it } from 'vitest';
import { validateJobsAgainstCatalog } from '../../../src/catalog/validate-job.js';
import { classifyJob, type PreviousJobState } from '../../../src/plan/classify-job.js';
import { estimateCost } from '../../../src/plan/estimate-cost.js';
import type { Balance, Subscription } from '../../../src/service/types.js';
import { locate, makeCatalog, makeJob } from '../catalog/fixtures.js';
import { makePlan, plannedJob } from './plan-fixtures.js';

const catalog = makeCatalog();
const balance = (availableCredit: number): Balance => ({
  freeCredit: availableCredit,
  purchasedCredit: 0,
  lockedCredit: 0,
  availableCredit,
  hasPurchased: false,
});
const subscription = (remaining: number): Subscription => ({
  tier: 'pro',
  quotas: [
    { capability: 'video', remaining: 99 },
    { capability: 'image', remaining },
  ],
});

/** A matrix of 2 products × 2 sizes on flux-pro (3 credits × numImages). */
function matrixPlan() {
  const jobs = ['latte', 'mocha'].flatMap((product) =>
    [1, 2].map((numImages) =>
      makeJob({
        id: `${product}-${numImages}`,
        model: 'flux-pro',
        params: { style: 'photo', numImages },
        matrixValues: { product, numImages },
      }),
    ),
  );
  const { planned, issues } = validateJobsAgainstCatalog(jobs, catalog, {
    locate,
    manifestDir: '/m',
    fileInfo: () => undefined,
  });
  expect(issues).toEqual([]);
  return makePlan(planned);
}

describe('estimateCost', () => {
  it('costs jobs with their multipliers, per model and per axis value', () => {
    const report = estimateCost(matrixPlan(), catalog, {}, { maxAttempts: 3 });
    expect(report.jobList.map((j) => [j.id, j.credits])).toEqual([
      ['latte-1', 3],
      ['latte-2', 6],
      ['mocha-1', 3],
      ['mocha-2', 6],
    ]);
    expect(report.models).toEqual([
      {
        model: 'flux-pro',
        displayName: 'Flux Pro',
        creditCost: 3,
        jobs: 4,
        credits: 18,
        jobsToRun: 4,
        creditsToRun: 18,
      },
    ]);
    expect(report.axes).toEqual([
      {
        axis: 'product',
        values: [
          { value: 'latte', jobs: 2, credits: 9, creditsToRun: 9 },
          { value: 'mocha', jobs: 2, credits: 9, creditsToRun: 9 },
        ],
      },
      {
        axis: 'numImages',
        values: [
          { value: '1', jobs: 2, credits: 6, creditsToRun: 6 },
          { value: '2', jobs: 2, credits: 12, creditsToRun: 12 },
        ],
      },
    ]);
    expect(report.credits).toEqual({
      total: 18,
      toRun: 18,
      coveredBySubscription: 0,
      needed: 18,
      allAttemptsCharged: 54,
      maxAttempts: 3,
      alreadySpent: 0,
    });
    expect(report.schemaVersion).toBe(1);
    expect(report.subscription).toEqual({ status: 'unknown', imageJobsToRun: 4, imageJobsCovered: 0 });
    expect(report.notes).toContain(
      'The subscription could not be read: every image job is assumed to be paid in credits.',
    );
    expect(report.verdict).toEqual({
      status: 'fits',
      message: 'needs 18 credits; balance not checked',
      checked: { budget: false, balance: false },
    });
  });

  it('lets the subscription image allowance cover image jobs, in plan order', () => {
    const plan = makePlan([
      plannedJob('a', { credits: 2 }),
      plannedJob('v', { kind: 'voiceover-video', model: 'voice-pro', credits: 10 }),
      plannedJob('b', { credits: 2 }),
      plannedJob('c', { credits: 2 }),
    ]);
    const report = estimateCost(
      plan,
      catalog,
      { balance: balance(100), subscription: subscription(2) },
      { maxAttempts: 1 },
    );
    expect(report.subscription).toEqual({
      status: 'known',
      tier: 'pro',
      imageQuotaRemaining: 2,
      imageJobsToRun: 3,
      imageJobsCovered: 2,
    });
    expect(report.jobList.map((j) => j.coveredBySubscription)).toEqual([true, false, true, false]);
    expect(report.credits).toMatchObject({ total: 16, toRun: 16, coveredBySubscription: 4, needed: 12 });
    expect(report.verdict.message).toBe('needs 12 credits; 100 available');
  });

  it('gives the verdicts with their figures', () => {
    const plan = (budget?: number) =>
      makePlan([plannedJob('a', { credits: 30 }), plannedJob('b', { credits: 10.5 })], budget);
    expect(estimateCost(plan(50), catalog, { balance: balance(100) }, { maxAttempts: 2 }).verdict).toEqual({
      status: 'fits',
      message: 'needs 40.5 credits; budget 50; 100 available',
      checked: { budget: true, balance: true },
    });
    expect(estimateCost(plan(), catalog, { balance: balance(25) }, { maxAttempts: 2 }).verdict).toEqual({
      status: 'over-available',
      message: 'needs 40.5 credits; 25 available; short by 15.5',
      checked: { budget: false, balance: true },
      shortBy: 15.5,
    });
    expect(estimateCost(plan(40), catalog, { balance: balance(25) }, { maxAttempts: 2 }).verdict).toEqual({
      status: 'over-budget',
      message: 'needs 40.5 credits; budget 40; 25 available; short by 15.5; over budget by 0.5',
      checked: { budget: true, balance: true },
      shortBy: 15.5,
      overBudgetBy: 0.5,
    });
  });

  it('counts only new, changed and retryable failed jobs toward the credits to spend now', () => {
    const jobs = ['new', 'changed', 'done', 'failed', 'failed-final', 'open', 'pending'].map((id) =>
      plannedJob(id, { credits: 1 }),
    );
    const previous = new Map<string, PreviousJobState>([
      ['changed', { payloadHash: 'old-hash', status: 'done' }],
      ['done', { payloadHash: 'hash-done', status: 'done' }],
      ['failed', { payloadHash: 'hash-failed', status: 'failed' }],
      ['failed-final', { payloadHash: 'hash-failed-final', status: 'failed', retryable: false }],
      ['open', { payloadHash: 'hash-open', status: 'open' }],
      ['pending', { payloadHash: 'hash-pending', status: 'pending' }],
    ]);
    const report = estimateCost(makePlan(jobs), catalog, {}, { maxAttempts: 3, previous });
    expect(report.jobList.map((j) => `${j.id}:${j.state}:${j.toRun}`)).toEqual([
      'new:new:true',
      'changed:changed:true',
      'done:done:false',
      'failed:failed:true',
      'failed-final:failed:false',
      'open:open:false',
      'pending:new:true',
    ]);
    expect(report.jobs).toEqual({
      total: 7,
      toRun: 4,
      byState: { new: 2, changed: 1, failed: 2, deferred: 0, open: 1, done: 1 },
    });
    expect(report.credits).toMatchObject({ total: 7, toRun: 4, needed: 4, allAttemptsCharged: 12 });
    expect(report.models[0]).toMatchObject({ jobs: 7, credits: 7, jobsToRun: 4, creditsToRun: 4 });
  });

  it('rounds fractional sums and reports models missing from the catalog', () => {
    const plan = makePlan([0.1, 0.2].map((credits, i) => plannedJob(`j${i}`, { model: 'gone', credits })));
    const report = estimateCost(plan, catalog, {}, { maxAttempts: 1 });
    expect(report.credits.total).toBe(0.3);
    expect(report.models).toEqual([
      {
        model: 'gone',
        displayName: 'gone',
        creditCost: null,
        jobs: 2,
        credits: 0.3,
        jobsToRun: 2,
        creditsToRun: 0.3,
      },
    ]);
  });
});

describe('estimateCost job list', () => {
  it("rounds each job's credits like the totals, so a script summing jobList gets clean figures", () => {
    const plan = makePlan([plannedJob('j', { credits: 0.1 * 3 })]);
    const report = estimateCost(plan, catalog, {}, { maxAttempts: 1 });
    expect(report.jobList[0]?.credits).toBe(0.3);
    expect(report.credits.total).toBe(0.3);
  });
});

describe('classifyJob', () => {
  it('treats a changed payload as changed whatever the previous status', () => {
    expect(classifyJob({ payloadHash: 'h2' }, { payloadHash: 'h1', status: 'open' })).toEqual({
      state: 'changed',
      toRun: true,
    });
    expect(classifyJob({ payloadHash: 'h1' }, undefined)).toEqual({ state: 'new', toRun: true });
  });
});
