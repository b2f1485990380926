import type { MatrixValue } from '../manifest/types.js';
import type { FieldChange } from './payload-diff.js';
import type { RenderedPayload } from './render-payloads.js';

/**
 * The cost report of `runner plan`: what `--format json` prints and CI reads. This shape is STABLE:
 * fields are only ever added; a breaking change bumps `schemaVersion`. All credit figures are in the
 * service's credits, rounded to 6 decimal places.
 */

/** Where a job stands against the previous run's state. */
export type JobStateClass =
  /** Not in the state: it will be created. */
  | 'new'
  /** In the state with a different payload hash (prompt, params, model or file content changed): created again. */
  | 'changed'
  /** Completed before with the same payload: skipped. */
  | 'done'
  /** Failed before with the same payload: created again when its failure is retryable. */
  | 'failed'
  /** Failed for a while (e.g. QUOTA_EXHAUSTED) and its retry time has not come: apply skips it for now. */
  | 'deferred'
  /** Created before and not finished: polled, not created again (its credits are already locked). */
  | 'open';

/** Every {@link JobStateClass}, in report order. */
export const JOB_STATE_CLASSES: readonly JobStateClass[] = [
  'new',
  'changed',
  'failed',
  'deferred',
  'open',
  'done',
];

/** Whether the plan can run: checked against the manifest budget and the available credit. */
export type VerdictStatus =
  /** Within the budget and the available credit (or those were not known; see `checked`). */
  | 'fits'
  /** Needs more credits than the account has available. */
  | 'over-available'
  /**
   * The run's spending (earlier applies included, every job to run counted before subscription coverage)
   * would cross the manifest `budget` or `--max-credits`; takes precedence over `over-available`.
   */
  | 'over-budget';

/** The whole report; see the file comment for the stability promise. */
export interface CostReport {
  /** Always 1 for this shape. */
  schemaVersion: 1;
  /** The manifest's `name`. */
  pipeline: string;
  /** The manifest path as the user gave it. */
  manifestFile: string;
  /** Job counts. */
  jobs: {
    /** Jobs in the plan. */
    total: number;
    /** Jobs to create in this run (new, changed and retryable failed). */
    toRun: number;
    /** Job count per state class; every class is present. */
    byState: Record<JobStateClass, number>;
  };
  /** Credit figures; `needed` is the one verdicts use. */
  credits: {
    /** Credits of every job in the plan, whatever its state. */
    total: number;
    /** Credits of the jobs to run now, before subscription coverage. */
    toRun: number;
    /** Credits of the jobs to run that the subscription's image allowance covers (charged 0). */
    coveredBySubscription: number;
    /** `toRun - coveredBySubscription`: what this run takes from the balance. Verdicts use this. */
    needed: number;
    /**
     * Conservative upper bound: `needed × maxAttempts`, as if every attempt of every job were charged.
     * Failed jobs are not charged (api-notes) and only GENERATION_TIMEOUT / QUOTA_EXHAUSTED are retried,
     * so the expected worst case is `needed`; this figure is for budgeting with a safety margin.
     */
    allAttemptsCharged: number;
    /** Attempts per job (first try included) used for `allAttemptsCharged`. */
    maxAttempts: number;
    /** Credits earlier applies of this run already spent; counted against `budget` and `--max-credits`. */
    alreadySpent: number;
  };
  /** The subscription's image allowance and what it covers. */
  subscription: {
    /** `known`: the plan was read; `unknown`: it could not be read, so all jobs are assumed paid in credits. */
    status: 'known' | 'unknown';
    /** The plan's tier name, when known. */
    tier?: string;
    /** Remaining allowance of the quota matched to the plan's first image job (by model slug or category), when known. */
    imageQuotaRemaining?: number;
    /** Image jobs (`kind: image`) to run now. */
    imageJobsToRun: number;
    /** Of those, how many the allowance covers (one allowance unit per job, in plan order). */
    imageJobsCovered: number;
    /**
     * Credits of image jobs a quota may cover although the runner cannot tell which quota applies
     * (see `notes`); counted as paid in `credits.needed`, not held against the verdict. Absent when 0.
     */
    unclearQuota?: number;
  };
  /** The account balance (spec 2.5), when fetched. */
  balance: {
    /** `known` when the balance was fetched; `not-checked` for an offline plan. */
    status: 'known' | 'not-checked';
    /** Spec 2.5 `availableCredit`, when known. */
    availableCredit?: number;
  };
  /** The manifest `budget`, when set. */
  budget?: number;
  /** `--max-credits`, when given: a cap like `budget` (the lower one applies). */
  maxCredits?: number;
  /** Whether the plan can run now. */
  verdict: {
    /** See {@link VerdictStatus}. */
    status: VerdictStatus;
    /** One sentence with the figures, e.g. `needs 40 credits; 25 available`. */
    message: string;
    /** Which limits were actually checked. */
    checked: { budget: boolean; balance: boolean };
    /** Credits over the budget, when over budget. */
    overBudgetBy?: number;
    /** Credits missing from the balance, when over available. */
    shortBy?: number;
  };
  /** Per model, in order of first appearance in the plan. */
  models: ModelSubtotal[];
  /** Per matrix axis and value, in order of first appearance; empty without a matrix. */
  axes: AxisSubtotal[];
  /** Every job in plan order (text and markdown renderers show only the first few). */
  jobList: JobCost[];
  /** Warning issues carried by the plan, as `code: message`. */
  warnings: string[];
  /** Assumptions the figures rest on, in plain sentences. */
  notes: string[];
  /** Present when `--only`, `--exclude` or `--replace` restricted the plan (src/plan/targeting-report.ts). */
  targeting?: TargetingSummary;
  /**
   * Jobs whose payload changed since the state last sent them, field by field (`~` changed, `+`
   * added, `-` removed). Present when a previous run's state was read.
   */
  changes?: { id: string; changes: FieldChange[] }[];
  /** With `plan --show payloads`: each planned job's prompt and params as they will be sent. */
  payloads?: RenderedPayload[];
  /**
   * The version of the parts `runner diff` reads (each job's `payloadHash`, `prompt`, `params`, and
   * `catalog`, `schedule`): {@link PLAN_DIFF_VERSION} in a JSON report; absent where they were not
   * kept (the text and markdown reports, apply's plan).
   */
  diffVersion?: number;
  /** Which catalog priced the plan, with each model's price rule (for `runner diff`'s price changes). */
  catalog?: PlanCatalog;
  /** The manifest's `schedule`: how often it runs; `null` when it has none. Present with `diffVersion`. */
  schedule?: PlanSchedule | null;
  /** `credits.total × schedule.runsPerMonth`, when the manifest has a schedule. */
  creditsPerMonth?: number;
  /**
   * Each distinct set of params the jobs send (catalog defaults applied, keys sorted, local files as
   * `{ file, sha256 }`, never their absolute path), referred to by each job's `paramsRef`. With `diffVersion`.
   */
  paramSets?: Record<string, unknown>[];
}

/** The version of the diff parts of a plan report (see {@link CostReport.diffVersion}). */
export const PLAN_DIFF_VERSION = 1;

/** How often a manifest runs, from its `schedule`. */
export interface PlanSchedule {
  /** As written, e.g. `nightly`, `weekly`, `12 per month`. */
  label: string;
  /** Runs per month the monthly figures use (nightly and daily: 30, weekly: 4.35, hourly: 720). */
  runsPerMonth: number;
}

/** The catalog a plan was priced with (the shape of `CatalogSource` in src/diff/cost-diff.ts, plus the rules). */
export interface PlanCatalog {
  /** `service`: fetched from `GET /models`; `file`: `--catalog FILE`; `simulator`: `--simulate`. */
  source: 'service' | 'file' | 'simulator';
  /** The catalog file as given, for `source: file`. */
  path?: string;
  /**
   * The `--catalog` file this side asked for and did not have (a base commit from before the catalog
   * was committed): `path` is then the `--catalog-fallback` it was priced with instead.
   */
  fallbackFor?: string;
  /**
   * When the catalog was fetched (ISO 8601), for `service` and `simulator`. Not given for a file: its
   * modification time is when it was checked out, not when its prices were read.
   */
  fetchedAt?: string;
  /** SHA-256 (hex) of the canonical JSON of `prices`: the same hash, the same prices. */
  pricesHash: string;
  /** Every catalog model's price rule in plain words, by slug, e.g. `4 credits per job × numImages (default 1)`. */
  prices: Record<string, string>;
}

/** What targeting flags did to a plan. */
export interface TargetingSummary {
  /** `--only` globs as given. */
  only: string[];
  /** `--exclude` globs as given. */
  exclude: string[];
  /** `--replace` ids: done jobs that run again as a new attempt. */
  replace: string[];
  /** Ids of the manifest's jobs left out of the plan, in manifest order. */
  leftOut: string[];
}

/** Subtotals of one model. */
export interface ModelSubtotal {
  /** The model's slug. */
  model: string;
  /** From the catalog; the slug when the model is not in the catalog passed in. */
  displayName: string;
  /** Base `creditCost` per generation, from the catalog; `null` when the model is not in it. */
  creditCost: number | null;
  /** Jobs of this model in the plan. */
  jobs: number;
  /** Their credits, whatever their state. */
  credits: number;
  /** Jobs of this model created in this run. */
  jobsToRun: number;
  /** Their credits, before subscription coverage. */
  creditsToRun: number;
}

/** Subtotals per value of one matrix axis. */
export interface AxisSubtotal {
  /** Matrix axis name, e.g. `product`. */
  axis: string;
  /** One entry per distinct value, in order of first appearance. */
  values: {
    /** The axis value as text, e.g. `latte`. */
    value: string;
    /** Jobs with this value in the plan. */
    jobs: number;
    /** Their credits, whatever their state (e.g. `product=latte: 20`). */
    credits: number;
    /** Credits of those among them created in this run, before subscription coverage. */
    creditsToRun: number;
  }[];
}

/** One job's line in the report. */
export interface JobCost {
  /** The expanded job id. */
  id: string;
  /** The job kind (`image`, `render-video`, ...). */
  kind: string;
  /** The model slug. */
  model: string;
  /** Estimated credits of one attempt. */
  credits: number;
  state: JobStateClass;
  /** Whether this job is created in this run and counts in `credits.toRun`. */
  toRun: boolean;
  /** Whether the subscription's image allowance is expected to cover it. */
  coveredBySubscription: boolean;
  /** The matrix values that produced it (empty object for a plain job). */
  matrixValues: Record<string, MatrixValue>;
  /** The job's identity hash (see `PlannedJob.payloadHash`); with the report's `diffVersion`. */
  payloadHash?: string;
  /** The prompt as sent, when the job has one; with the report's `diffVersion`. */
  prompt?: string;
  /**
   * The params as sent: the index of their set in the report's `paramSets` (jobs of one entry mostly
   * share theirs, and 100,000 copies would triple the report); with the report's `diffVersion`.
   */
  paramsRef?: number;
}
