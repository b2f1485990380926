import type { Balance, Model, Subscription } from '../service/types.js';
import type {
  AxisSubtotal,
  CostReport,
  JobCost,
  JobStateClass,
  ModelSubtotal,
  VerdictStatus,
} from './cost-report.js';
import { formatCredits, roundCredits } from './credits.js';
import { matrixValueText } from '../manifest/expand-matrix.js';
import type { Plan, PlannedJob } from './types.js';

/** What the previous run's state says about one job (a plain summary of the state journal). */
export interface PreviousJobState {
  payloadHash: string;
  /** `pending`: recorded but never created; counted like a new job. */
  status: 'done' | 'failed' | 'open' | 'pending';
  /** For `failed`: whether apply would try again. @default true (counted: the conservative choice) */
  retryable?: boolean;
}

/** The account figures the estimate is checked against; leave a field out when it was not fetched. */
export interface CostAccount {
  balance?: Balance;
  /** `'unknown'` (or absent) when the subscription could not be read: every job is assumed paid in credits. */
  subscription?: Subscription | 'unknown';
}

export interface CostOptions {
  /** Attempts per job, first try included (manifest `retry.maxAttempts`). */
  maxAttempts: number;
  /** jobId → previous state; absent means every job is new. */
  previous?: ReadonlyMap<string, PreviousJobState>;
}

/** The subscription image job is the only kind a plan's allowance covers (spec 4.3, 2.6 `chargeSource`). */
const SUBSCRIPTION_KIND = 'image';

/** Where a planned job stands against the previous run's state. */
export function classifyJob(
  job: Pick<PlannedJob, 'id' | 'payloadHash'>,
  previous: PreviousJobState | undefined,
): {
  state: JobStateClass;
  toRun: boolean;
} {
  if (previous === undefined || previous.status === 'pending') return { state: 'new', toRun: true };
  if (previous.payloadHash !== job.payloadHash) return { state: 'changed', toRun: true };
  if (previous.status === 'failed') return { state: 'failed', toRun: previous.retryable !== false };
  return { state: previous.status, toRun: false };
}

/**
 * The cost report of a plan: credits per job (already in `PlannedJob.estimatedCredits`), per model,
 * per matrix axis value and in total; what this run needs after the subscription's image allowance;
 * and a verdict against the manifest budget and the available credit. Pure.
 *
 * Worst case: failed jobs are not charged (api-notes) and only GENERATION_TIMEOUT / QUOTA_EXHAUSTED
 * are retried, so retries add nothing and `credits.needed` is the expected worst case. The report
 * also gives `allAttemptsCharged` (`needed × maxAttempts`) as a conservative bound; verdicts use `needed`.
 */
export function estimateCost(
  plan: Plan,
  catalog: readonly Model[],
  account: CostAccount,
  options: CostOptions,
): CostReport {
  const bySlug = new Map(catalog.map((model) => [model.slug, model] as const));
  const subscription = account.subscription === 'unknown' ? undefined : account.subscription;
  const quota = subscription?.quotas.find((q) => q.capability === 'image')?.remaining;
  let allowance = Math.max(0, quota ?? 0);

  const byState: Record<JobStateClass, number> = { new: 0, changed: 0, failed: 0, open: 0, done: 0 };
  const models = new Map<string, ModelSubtotal>();
  const axes = new Map<string, Map<string, AxisSubtotal['values'][number]>>();
  const jobList: JobCost[] = [];
  let total = 0;
  let toRun = 0;
  let covered = 0;
  let jobsToRun = 0;
  let imageJobsToRun = 0;
  let imageJobsCovered = 0;

  for (const job of plan.jobs) {
    const { state, toRun: runs } = classifyJob(job, options.previous?.get(job.id));
    const credits = job.estimatedCredits;
    const runCredits = runs ? credits : 0;
    let isCovered = false;
    byState[state] += 1;
    total += credits;
    if (runs) {
      jobsToRun += 1;
      toRun += credits;
      if (job.kind === SUBSCRIPTION_KIND) {
        imageJobsToRun += 1;
        if (allowance > 0) {
          allowance -= 1;
          imageJobsCovered += 1;
          covered += credits;
          isCovered = true;
        }
      }
    }
    const model = models.get(job.model) ?? newModelSubtotal(job.model, bySlug.get(job.model));
    models.set(job.model, model);
    model.jobs += 1;
    model.credits += credits;
    if (runs) model.jobsToRun += 1;
    model.creditsToRun += runCredits;
    for (const [axis, value] of Object.entries(job.source.matrixValues)) {
      const values = axes.get(axis) ?? new Map<string, AxisSubtotal['values'][number]>();
      axes.set(axis, values);
      const key = matrixValueText(value);
      const entry = values.get(key) ?? { value: key, jobs: 0, credits: 0, creditsToRun: 0 };
      values.set(key, entry);
      entry.jobs += 1;
      entry.credits += credits;
      entry.creditsToRun += runCredits;
    }
    jobList.push({
      id: job.id,
      kind: job.kind,
      model: job.model,
      credits: roundCredits(credits),
      state,
      toRun: runs,
      coveredBySubscription: isCovered,
      matrixValues: job.source.matrixValues,
    });
  }

  const needed = roundCredits(toRun - covered);
  const report: CostReport = {
    schemaVersion: 1,
    pipeline: plan.pipeline,
    manifestFile: plan.manifestFile,
    jobs: { total: plan.jobs.length, toRun: jobsToRun, byState },
    credits: {
      total: roundCredits(total),
      toRun: roundCredits(toRun),
      coveredBySubscription: roundCredits(covered),
      needed,
      allAttemptsCharged: roundCredits(needed * options.maxAttempts),
      maxAttempts: options.maxAttempts,
    },
    subscription: {
      status: subscription === undefined ? 'unknown' : 'known',
      imageJobsToRun,
      imageJobsCovered,
    },
    balance: { status: account.balance === undefined ? 'not-checked' : 'known' },
    verdict: decideVerdict(needed, plan.budget, account.balance?.availableCredit),
    models: [...models.values()].map(roundSubtotal),
    axes: [...axes].map(([axis, values]) => ({
      axis,
      values: [...values.values()].map((v) => ({
        ...v,
        credits: roundCredits(v.credits),
        creditsToRun: roundCredits(v.creditsToRun),
      })),
    })),
    jobList,
    warnings: plan.warnings.map((issue) => `${issue.code}: ${issue.message}`),
    notes: buildNotes(subscription, account.balance, options.maxAttempts),
  };
  if (subscription !== undefined) report.subscription.tier = subscription.tier;
  if (quota !== undefined) report.subscription.imageQuotaRemaining = quota;
  if (account.balance !== undefined) report.balance.availableCredit = account.balance.availableCredit;
  if (plan.budget !== undefined) report.budget = plan.budget;
  return report;
}

function newModelSubtotal(slug: string, model: Model | undefined): ModelSubtotal {
  return {
    model: slug,
    displayName: model?.displayName ?? slug,
    creditCost: model?.creditCost ?? null,
    jobs: 0,
    credits: 0,
    jobsToRun: 0,
    creditsToRun: 0,
  };
}

function roundSubtotal(subtotal: ModelSubtotal): ModelSubtotal {
  return {
    ...subtotal,
    credits: roundCredits(subtotal.credits),
    creditsToRun: roundCredits(subtotal.creditsToRun),
  };
}

function decideVerdict(
  needed: number,
  budget: number | undefined,
  available: number | undefined,
): CostReport['verdict'] {
  const checked = { budget: budget !== undefined, balance: available !== undefined };
  const figures = [`needs ${formatCredits(needed)} credits`];
  if (budget !== undefined) figures.push(`budget ${formatCredits(budget)}`);
  if (available !== undefined) figures.push(`${formatCredits(available)} available`);
  else figures.push('balance not checked');
  let status: VerdictStatus = 'fits';
  const verdict: CostReport['verdict'] = { status, message: '', checked };
  if (available !== undefined && needed > available) {
    status = 'over-available';
    verdict.shortBy = roundCredits(needed - available);
    figures.push(`short by ${formatCredits(verdict.shortBy)}`);
  }
  if (budget !== undefined && needed > budget) {
    status = 'over-budget';
    verdict.overBudgetBy = roundCredits(needed - budget);
    figures.push(`over budget by ${formatCredits(verdict.overBudgetBy)}`);
  }
  verdict.status = status;
  verdict.message = figures.join('; ');
  return verdict;
}

function buildNotes(
  subscription: Subscription | undefined,
  balance: Balance | undefined,
  maxAttempts: number,
): string[] {
  const notes = [
    `Failed jobs are not charged and only GENERATION_TIMEOUT and QUOTA_EXHAUSTED are retried, so retries should cost nothing extra; the all-attempts figure assumes each of ${maxAttempts} attempts is charged.`,
  ];
  if (subscription === undefined) {
    notes.push('The subscription could not be read: every image job is assumed to be paid in credits.');
  } else {
    notes.push('The subscription image allowance is assumed to cover one image job per unit, in plan order.');
  }
  if (balance === undefined) notes.push('The balance was not checked.');
  return notes;
}
