/**
 * The cost diff of `runner diff` (issue 18): what a change to one or more manifests does to the bill,
 * between a base (the target branch) and a head (the pull request). `runner diff --format json` prints
 * this document and `runner comment github` reads it. This shape is STABLE: fields are only ever added;
 * a breaking change bumps `schemaVersion`. All credit figures are in the service's credits, rounded to
 * 6 decimal places, and every delta is `head - base`.
 */

/** What `kind` a cost diff document carries, so a reader can tell it from a plan report by content. */
export const COST_DIFF_KIND = 'runner-cost-diff';

/** The version of {@link CostDiff}'s shape. */
export const COST_DIFF_VERSION = 1;

/** A figure on both sides and how it moved. */
export interface CreditDelta {
  /** Credits on the base side (0 when the thing is absent there). */
  base: number;
  /** Credits on the head side (0 when the thing is absent there). */
  head: number;
  /** `head - base`. */
  delta: number;
  /** `delta / base × 100`, rounded to 1 decimal; `null` when `base` is 0 (no percentage of nothing). */
  percent: number | null;
}

/** Which catalog (model prices) one side was priced with. */
export interface CatalogSource {
  /** `service`: fetched from `GET /models`; `file`: `--catalog FILE`; `simulator`: `--simulate`. */
  source: 'service' | 'file' | 'simulator';
  /** The catalog file as given, for `source: file`. */
  path?: string;
  /**
   * (Added.) The catalog file this side's tree did not have (`plan --catalog-fallback`: the base commit
   * of the pull request that adds `catalog.json`); `path` is the file it was priced with instead.
   */
  fallbackFor?: string;
  /** When the catalog was fetched or the file last written (ISO 8601), when known. */
  fetchedAt?: string;
  /** A hash of the model prices the side used (same hash, same prices). */
  pricesHash: string;
}

/** A model whose price differs between the two sides' catalogs: a price change, not a manifest change. */
export interface PriceChange {
  /** The model's id as the manifest names it. */
  model: string;
  /** What the price rule said on the base side, in plain words (e.g. `2 credits per image`); absent if the model was missing. */
  base?: string;
  /** What it says on the head side; absent if the model is gone. */
  head?: string;
}

/** A job present on one side only. */
export interface JobOnOneSide {
  /** The job id. */
  id: string;
  /** Its model. */
  model: string;
  /** Its credits on that side. */
  credits: number;
}

/** A job present on both sides whose payload or price changed. */
export interface ChangedJob {
  /** The job id. */
  id: string;
  /** The model on the base side. */
  baseModel: string;
  /** The model on the head side (equal to `baseModel` unless the model was switched). */
  headModel: string;
  /** Credits on both sides. */
  credits: CreditDelta;
  /**
   * What changed, as dotted paths in the payload: `model`, `prompt`, `params.numImages`, … Empty when only
   * the price changed (a catalog price change with the same payload).
   */
  changed: string[];
  /**
   * (Added with #33.8.) Each changed path with its value on both sides, as short text (`1` → `3`, `a` → `b`;
   * long values cut with `…` around where they differ; `null`: absent on that side). Values are the plan
   * reports', where a secret was already replaced by `[REDACTED]`. Absent when only the price changed,
   * and in older diffs.
   */
  changes?: FieldChange[];
}

/** One changed field of a job's payload, with its values shortened for people. */
export interface FieldChange {
  path: string;
  base: string | null;
  head: string | null;
}

/** A job whose id changed but whose payload is the same: shown as a rename, not removed + added. */
export interface RenamedJob {
  /** The id on the base side. */
  from: string;
  /** The id on the head side. */
  to: string;
  /** Its credits on both sides (they differ only when the price changed). */
  credits: CreditDelta;
}

/** A subtotal of one group (a model, an axis value) on both sides. */
export type GroupDelta = CreditDelta & {
  /** How many jobs of the group on each side. */
  jobs: { base: number; head: number };
};

/** How often a manifest runs, from its `schedule`. */
export interface Schedule {
  /** As written in the manifest, e.g. `nightly`, `weekly`, `30 per month`. */
  label: string;
  /** Runs per month used for the monthly figures (nightly: 30). */
  runsPerMonth: number;
}

/** One manifest's change. */
export interface ManifestDiff {
  /** The manifest path as given (relative to where the command ran). */
  path: string;
  /** The manifest's `name` (head side, or base side when removed). */
  pipeline: string;
  /** `added`: on the head side only; `removed`: on the base side only. */
  change: 'added' | 'removed' | 'changed' | 'unchanged';
  /**
   * The head side's schedule (the base side's when the manifest was removed); `null` when it has none.
   * `perMonth` counts a side without one by the other side's (see {@link scheduleBefore}).
   */
  schedule: Schedule | null;
  /**
   * (Added after the first release of `runner diff`.) The base side's schedule, present only when the
   * change added, removed or changed the schedule (`null`: the base had none), so a reader sees why
   * the monthly figures moved.
   */
  scheduleBefore?: Schedule | null;
  /** Credits per run of the whole manifest (every job, whatever the state). */
  perRun: CreditDelta;
  /** `perRun × runsPerMonth` on each side; `null` without a schedule. */
  perMonth: CreditDelta | null;
  /** Job counts on each side and by kind of change. */
  counts: {
    base: number;
    head: number;
    added: number;
    removed: number;
    changed: number;
    renamed: number;
    unchanged: number;
  };
  /** The jobs, by kind of change; unchanged jobs are only counted. */
  jobs: { added: JobOnOneSide[]; removed: JobOnOneSide[]; changed: ChangedJob[]; renamed: RenamedJob[] };
  /** Per model (union of both sides), largest |delta| first. */
  byModel: Array<GroupDelta & { model: string }>;
  /** Per matrix axis and value (union of both sides), largest |delta| first; map values by their readable label. */
  byAxisValue: Array<GroupDelta & { axis: string; value: string }>;
  /**
   * (Added in the first release of `runner diff`.) The part of `perRun.delta` that comes from price
   * changes alone: jobs whose payload is the same on both sides (same id, or renamed) but whose credits
   * differ. Jobs whose payload also changed are counted as manifest changes.
   */
  priceDelta?: number;
}

/** A `--fail-on-increase*` limit and whether the change crossed it. */
export interface GuardrailCheck {
  /** `increase`: `--fail-on-increase <credits>`; `increase-percent`: `--fail-on-increase-percent <n>`. */
  limit: 'increase' | 'increase-percent';
  /** The limit as given. */
  threshold: number;
  /**
   * (Added with `--fail-on-increase N/UNIT`, #33.7.) The unit the check counted in: `month`, `run`, or the
   * manifests' one schedule's word for a run (`night`, `day`, `week`, `hour`). Absent in older diffs.
   */
  per?: string;
  /** The figure compared with it (total per-run delta, or its percent; monthly when every manifest has a schedule). */
  actual: number;
  /** Whether `actual > threshold` (then `runner diff` exits 3). */
  crossed: boolean;
  /** One sentence with the figures, e.g. `adds 1,240 credits per run; the limit is 1,000`. */
  message: string;
}

/** The whole diff; see the file comment for the stability promise. */
export interface CostDiff {
  /** Always {@link COST_DIFF_KIND}. */
  kind: typeof COST_DIFF_KIND;
  /** Always {@link COST_DIFF_VERSION}. */
  schemaVersion: typeof COST_DIFF_VERSION;
  /** Sum over every manifest, per run. */
  total: CreditDelta;
  /** Sum per month over the manifests with a schedule; `null` when none has one. */
  totalPerMonth: CreditDelta | null;
  /** Which catalog each side was priced with; `samePrices` false means a price change is part of the delta. */
  catalogs: {
    base: CatalogSource;
    head: CatalogSource;
    /** Whether no model the plans use changed its price rule between the two catalogs. */
    samePrices: boolean;
    /** The models the plans use whose price rule differs, by slug. */
    priceChanges: PriceChange[];
    /** (Added.) The sum of the manifests' `priceDelta`: how much of `total.delta` is price changes alone. */
    priceDelta?: number;
  };
  /** Every manifest on either side, in path order. */
  manifests: ManifestDiff[];
  /** The limits given and whether each was crossed; empty without `--fail-on-increase*`. */
  guardrails: GuardrailCheck[];
}
