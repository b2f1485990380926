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
import { matchQuota } from './match-quota.js';
import { matchesPayload } from './payload-hash.js';
import type { Plan, PlannedJob } from './types.js';

/** What the previous run's state says about one job (a plain summary of the state journal). */
export interface PreviousJobState {
  payloadHash: string;
  /**
   * `pending`: recorded but never created; counted like a new job. `deferred`: a temporary failure
   * whose retry time has not come (apply skips it).
   */
  status: 'done' | 'failed' | 'open' | 'pending' | 'deferred';
  /** For `failed`: whether apply would try again. @default true (counted: the conservative choice) */
  retryable?: boolean;
  /** For `open`: a create with no job id known; apply reserves its credits against the budget. */
  unanswered?: boolean;
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
  /**
   * Credits the run's state has already spent (`sumBudgetedCredits` of every job in it): apply counts
   * them against the budget and `--max-credits`, so the plan does too. @default 0
   */
  alreadySpent?: number;
  /** `--max-credits`: a cap on all the run's spending, like the manifest `budget` (the lower one wins). */
  maxCredits?: number;
}

/** The subscription image job is the only kind a plan's allowance covers (spec 4.3, 2.6 `chargeSource`). */
const SUBSCRIPTION_KIND = 'image';

/** Where a planned job stands against the previous run's state. */
export function classifyJob(
  job: Pick<PlannedJob, 'id' | 'payloadHash' | 'legacyPayloadHash'>,
  previous: PreviousJobState | undefined,
): {
  state: JobStateClass;
  toRun: boolean;
} {
  if (previous === undefined || previous.status === 'pending') return { state: 'new', toRun: true };
  if (!matchesPayload(previous.payloadHash, job)) return { state: 'changed', toRun: true };
  if (previous.status === 'failed') return { state: 'failed', toRun: previous.retryable !== false };
  if (previous.status === 'deferred') return { state: 'deferred', toRun: false };
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
  const quotas = subscription === undefined ? undefined : createQuotaLedger(subscription, catalog);

  const byState: Record<JobStateClass, number> = {
    new: 0,
    changed: 0,
    failed: 0,
    deferred: 0,
    open: 0,
    done: 0,
  };
  let unanswered = 0;
  const models = new Map<string, ModelSubtotal>();
  const axes = new Map<string, Map<string, AxisSubtotal['values'][number]>>();
  const jobList: JobCost[] = [];
  let total = 0;
  let toRun = 0;
  let covered = 0;
  let jobsToRun = 0;
  let imageJobsToRun = 0;
  let imageJobsCovered = 0;
  /** Credits of jobs a quota might cover that the runner cannot match for sure (counted as paid). */
  let maybeCovered = 0;

  for (const job of plan.jobs) {
    const previous = options.previous?.get(job.id);
    const { state, toRun: runs } = classifyJob(job, previous);
    if (state === 'open' && previous?.unanswered === true) unanswered += job.estimatedCredits;
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
        const take = quotas?.take(job.model, bySlug.get(job.model)?.category);
        if (take === 'covered') {
          imageJobsCovered += 1;
          covered += credits;
          isCovered = true;
        } else if (take === 'unclear') maybeCovered += credits;
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
  const budgetCheck = {
    cap: lowestCap(plan.budget, options.maxCredits),
    alreadySpent: roundCredits(options.alreadySpent ?? 0),
    // Apply reserves every job's estimate before its create, not knowing whether the subscription will
    // cover it, and re-sends unanswered creates: a plan that fits must not meet a budget stop later.
    reserved: roundCredits(toRun + unanswered),
  };
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
      alreadySpent: budgetCheck.alreadySpent,
    },
    subscription: {
      status: subscription === undefined ? 'unknown' : 'known',
      imageJobsToRun,
      imageJobsCovered,
    },
    balance: { status: account.balance === undefined ? 'not-checked' : 'known' },
    // A quota the runner cannot match is reported, not held against the run: the verdict uses the
    // figure as if it applied, while `needed` stays the conservative one and the executor's budget
    // still reserves every job's full estimate.
    verdict: decideVerdict(needed, budgetCheck, account.balance?.availableCredit, roundCredits(maybeCovered)),
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
  const quota = quotas?.firstMatchedRemaining();
  if (quota !== undefined) report.subscription.imageQuotaRemaining = quota;
  const unclear = quotas?.unclearNotes() ?? [];
  if (unclear.length > 0) {
    report.subscription.unclearQuota = roundCredits(maybeCovered);
    report.notes.push(...unclear);
  }
  if (account.balance !== undefined) report.balance.availableCredit = account.balance.availableCredit;
  if (plan.budget !== undefined) report.budget = plan.budget;
  if (options.maxCredits !== undefined) report.maxCredits = options.maxCredits;
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

function lowestCap(budget: number | undefined, maxCredits: number | undefined): number | undefined {
  const caps = [budget, maxCredits].filter((cap): cap is number => cap !== undefined);
  return caps.length === 0 ? undefined : Math.min(...caps);
}

/**
 * Against the available credit: what this run takes from the balance (`needed`). Against the budget
 * and `--max-credits`: what apply's budget would count, the state's earlier spending included.
 */
function decideVerdict(
  neededAtMost: number,
  budget: { cap: number | undefined; alreadySpent: number; reserved: number },
  available: number | undefined,
  maybeCovered: number,
): CostReport['verdict'] {
  const needed = roundCredits(neededAtMost - maybeCovered);
  const checked = { budget: budget.cap !== undefined, balance: available !== undefined };
  const figures = [
    maybeCovered > 0
      ? `needs ${formatCredits(needed)} to ${formatCredits(neededAtMost)} credits (unclear subscription quota)`
      : `needs ${formatCredits(needed)} credits`,
  ];
  const counted = roundCredits(budget.alreadySpent + budget.reserved);
  if (budget.cap !== undefined) {
    figures.push(`budget ${formatCredits(budget.cap)}`);
    if (budget.alreadySpent > 0) figures.push(`${formatCredits(budget.alreadySpent)} already spent`);
    if (budget.reserved > needed) {
      figures.push(`budget counts ${formatCredits(budget.reserved)} (no subscription coverage assumed)`);
    }
  }
  if (available !== undefined) figures.push(`${formatCredits(available)} available`);
  else figures.push('balance not checked');
  let status: VerdictStatus = 'fits';
  const verdict: CostReport['verdict'] = { status, message: '', checked };
  if (available !== undefined && needed > available) {
    status = 'over-available';
    verdict.shortBy = roundCredits(needed - available);
    figures.push(`short by ${formatCredits(verdict.shortBy)}`);
  }
  if (budget.cap !== undefined && counted > budget.cap) {
    status = 'over-budget';
    verdict.overBudgetBy = roundCredits(counted - budget.cap);
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

/** The quotas of a subscription, taken one unit per covered job as the plan is walked. */
function createQuotaLedger(subscription: Subscription, catalog: readonly Model[]) {
  const remaining = new Map(subscription.quotas.map((q) => [q.capability, Math.max(0, q.remaining)]));
  const catalogSlugs = new Set(catalog.map((model) => model.slug.toLowerCase()));
  const unclear = new Map<string, string[]>();
  let firstMatched: number | undefined;
  return {
    /** `covered` takes a unit; `unclear`: a quota may apply but which one cannot be told. */
    take(slug: string, category: string | undefined): 'covered' | 'not-covered' | 'unclear' {
      const match = matchQuota(subscription, { slug, category }, catalogSlugs);
      if (match.status === 'unclear') {
        unclear.set(slug, match.capabilities);
        return 'unclear';
      }
      if (match.status === 'none') return 'not-covered';
      const left = remaining.get(match.capability) ?? 0;
      firstMatched ??= left;
      if (left <= 0) return 'not-covered';
      remaining.set(match.capability, left - 1);
      return 'covered';
    },
    firstMatchedRemaining: () => firstMatched,
    unclearNotes: () =>
      [...unclear].map(
        ([slug, capabilities]) =>
          `Cannot tell which subscription quota applies to model ${slug} (quota capabilities: ${capabilities.join(', ')}): its image jobs are counted as paid in credits in "needed", and the verdict does not refuse the run over them; the service decides at create time.`,
      ),
  };
}
