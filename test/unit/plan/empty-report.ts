import type { CostReport } from '../../../src/plan/cost-report.js';

/** A report with no jobs of its own: the tests put a table in its place. */
export const EMPTY_REPORT: Omit<CostReport, 'jobList'> = {
  schemaVersion: 1,
  pipeline: 'p',
  manifestFile: 'p.yaml',
  jobs: { total: 0, toRun: 0, byState: { new: 0, changed: 0, failed: 0, deferred: 0, open: 0, done: 0 } },
  credits: {
    total: 0,
    toRun: 0,
    coveredBySubscription: 0,
    needed: 0,
    alreadySpent: 0,
    allAttemptsCharged: 0,
    maxAttempts: 3,
  },
  subscription: { status: 'unknown', imageJobsToRun: 0, imageJobsCovered: 0 },
  balance: { status: 'not-checked' },
  verdict: { status: 'fits', message: 'm', checked: { budget: false, balance: false } },
  models: [],
  axes: [],
  warnings: [],
  notes: [],
};
