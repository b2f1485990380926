import { readCredits } from '../service/credit-cost.js';
import { matrixValueText } from '../manifest/expand-matrix.js';
import type { MatrixValue, ValidationIssue } from '../manifest/types.js';
import type { Model } from '../service/types.js';
import { classifyJob, type CostAccount, type CostOptions } from './classify-job.js';
import type { AxisSubtotal, JobStateClass, ModelSubtotal, PlanCatalog, PlanSchedule } from './cost-report.js';
import { PLAN_DIFF_VERSION } from './cost-report.js';
import { describeCatalog } from './catalog-prices.js';
import { buildNotes, decideVerdict, lowestCap } from './cost-verdict.js';
import { roundCredits } from './credits.js';
import {
  createJobTable,
  type CostReportView,
  type JobTable,
  type JobTableEntry,
  type ReplayJobs,
  type ShownPayload,
} from './job-table.js';
import { createQuotaLedger } from './quota-ledger.js';
import type { PayloadHashes } from '../catalog/payload-hash.js';
import type { PlannedJob } from '../manifest/planned-job.js';

/** The subscription image job is the only kind a plan's allowance covers (spec 4.3, 2.6 `chargeSource`). */
const SUBSCRIPTION_KIND = 'image';

/** What the tally needs of one planned job. */
export interface TallyJob
  extends Pick<PlannedJob, 'id' | 'kind' | 'model' | 'estimatedCredits'>, PayloadHashes {
  /** Read only when the previous state has the job (see `classifyJob`). */
  payloadHash: string;
  matrixValues: Record<string, MatrixValue>;
  /** Handed back to `matrixValuesOf` when the job list is read. */
  ref: number;
  /** What `runner diff` reads of the job; kept when the options ask for `diffData`. */
  shown?: ShownPayload;
}

/** The plan-wide facts the report carries besides its jobs. */
export interface TallyPlan {
  pipeline: string;
  manifestFile: string;
  warnings: readonly ValidationIssue[];
  budget?: number;
  /** The manifest's schedule, shown with `diffData`. */
  schedule?: PlanSchedule;
}

/** Running sums of a cost report, fed one planned job at a time (see {@link createCostTally}). */
export interface CostTally {
  /** Counts one job, in plan order. */
  add(job: TallyJob): void;
  /** The report: the subscription's allowance walked over the jobs in plan order, then the verdict. */
  finish(plan: TallyPlan, account: CostAccount): CostReportView & { jobList: JobTable };
}

/**
 * The cost report of a plan built as running sums: per state, per model, per matrix axis value and in
 * total, with each job kept as a compact row of a {@link JobTable} (its prompt read back from `replay`
 * when given). The account (balance and subscription) is needed only at the end, so a plan can be
 * priced before the account is read. Pure.
 */
export function createCostTally(
  catalog: readonly Model[],
  options: CostOptions,
  matrixValuesOf: (ref: number) => Record<string, MatrixValue>,
  replay?: ReplayJobs,
): CostTally {
  const bySlug = new Map(catalog.map((model) => [model.slug, model] as const));
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
  const axes = new Map<string, AxisTally>();
  const table = createJobTable(matrixValuesOf, replay);
  let total = 0;
  let toRun = 0;
  let jobsToRun = 0;

  const add = (job: TallyJob): void => {
    const previous = options.previous?.get(job.id);
    const { state, toRun: runs } = classifyJob(job, previous);
    if (state === 'open' && previous?.unanswered === true) unanswered += job.estimatedCredits;
    const credits = job.estimatedCredits;
    const runCredits = runs ? credits : 0;
    byState[state] += 1;
    total += credits;
    if (runs) {
      jobsToRun += 1;
      toRun += credits;
    }
    let model = models.get(job.model);
    if (model === undefined) {
      model = newModelSubtotal(job.model, bySlug.get(job.model));
      models.set(job.model, model);
    }
    model.jobs += 1;
    model.credits += credits;
    if (runs) model.jobsToRun += 1;
    model.creditsToRun += runCredits;
    for (const axis in job.matrixValues) {
      let tally = axes.get(axis);
      if (tally === undefined) {
        tally = { values: new Map(), lastValue: undefined, lastEntry: undefined };
        axes.set(axis, tally);
      }
      const value = job.matrixValues[axis];
      // A matrix's jobs come in runs of one value on every axis but the last: no text made for those.
      let entry = tally.lastValue === value ? tally.lastEntry : undefined;
      if (entry === undefined) {
        const key = matrixValueText(value);
        entry = tally.values.get(key);
        if (entry === undefined) {
          entry = { value: key, jobs: 0, credits: 0, creditsToRun: 0 };
          tally.values.set(key, entry);
        }
        tally.lastValue = value;
        tally.lastEntry = entry;
      }
      entry.jobs += 1;
      entry.credits += credits;
      entry.creditsToRun += runCredits;
    }
    const entry: JobTableEntry = {
      id: job.id,
      kind: job.kind,
      model: job.model,
      credits,
      state,
      toRun: runs,
      ref: job.ref,
    };
    if (options.diffData !== undefined && job.shown !== undefined) entry.shown = job.shown;
    table.push(entry);
  };

  const finish: CostTally['finish'] = (plan, account) => {
    const subscription = account.subscription === 'unknown' ? undefined : account.subscription;
    const quotas = subscription === undefined ? undefined : createQuotaLedger(subscription, catalog);
    let covered = 0;
    let imageJobsToRun = 0;
    let imageJobsCovered = 0;
    /** Credits of jobs a quota might cover that the runner cannot match for sure (counted as paid). */
    let maybeCovered = 0;
    for (let index = 0; index < table.length; index++) {
      if (!table.toRunAt(index) || table.kindAt(index) !== SUBSCRIPTION_KIND) continue;
      imageJobsToRun += 1;
      const slug = table.modelAt(index);
      const take = quotas?.take(slug, bySlug.get(slug)?.category);
      if (take === 'covered') {
        imageJobsCovered += 1;
        covered += table.creditsAt(index);
        table.setCovered(index);
      } else if (take === 'unclear') maybeCovered += table.creditsAt(index);
    }

    const needed = roundCredits(toRun - covered);
    const budgetCheck = {
      cap: lowestCap(plan.budget, options.maxCredits),
      alreadySpent: roundCredits(options.alreadySpent ?? 0),
      // Apply reserves every job's estimate before its create, not knowing whether the subscription will
      // cover it, and re-sends unanswered creates: a plan that fits must not meet a budget stop later.
      reserved: roundCredits(toRun + unanswered),
    };
    const report: CostReportView & { jobList: JobTable } = {
      schemaVersion: 1,
      pipeline: plan.pipeline,
      manifestFile: plan.manifestFile,
      jobs: { total: table.length, toRun: jobsToRun, byState },
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
      verdict: decideVerdict(
        needed,
        budgetCheck,
        account.balance?.availableCredit,
        roundCredits(maybeCovered),
      ),
      models: [...models.values()].map(roundSubtotal),
      axes: [...axes].map(([axis, { values }]) => ({
        axis,
        values: [...values.values()].map((v) => ({
          ...v,
          credits: roundCredits(v.credits),
          creditsToRun: roundCredits(v.creditsToRun),
        })),
      })),
      jobList: table,
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
    if (options.diffData !== undefined) {
      addDiffParts(report, describeCatalog(catalog, options.diffData.catalogOrigin));
      report.paramSets = table.paramSets();
    }
    // Every report gives the monthly figure of a scheduled manifest (the JSON says `null` for none).
    if (plan.schedule !== undefined) {
      report.schedule = plan.schedule;
      report.creditsPerMonth = roundCredits(report.credits.total * plan.schedule.runsPerMonth);
    }
    return report;
  };
  return { add, finish };
}

/** One matrix axis's subtotals by value text, and the value last counted with its subtotal. */
interface AxisTally {
  values: Map<string, AxisSubtotal['values'][number]>;
  lastValue: MatrixValue | undefined;
  /** Undefined until a value is counted (then `lastValue` is that value's). */
  lastEntry: AxisSubtotal['values'][number] | undefined;
}

/** The report's parts for `runner diff`: their version, the catalog's prices, no schedule until one is given. */
function addDiffParts(report: CostReportView, catalog: PlanCatalog): void {
  report.diffVersion = PLAN_DIFF_VERSION;
  report.catalog = catalog;
  report.schedule = null;
}

function newModelSubtotal(slug: string, model: Model | undefined): ModelSubtotal {
  return {
    model: slug,
    displayName: model?.displayName ?? slug,
    creditCost: readCredits(model?.creditCost) ?? null,
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
