import type { MatrixValue } from '../manifest/types.js';
import { roundCredits } from '../plan/credits.js';
import type { PlanCatalog, PlanSchedule } from '../plan/cost-report.js';
import { axisValueLabel } from './axis-label.js';
import { changedFields } from './changed-paths.js';
import {
  COST_DIFF_KIND,
  COST_DIFF_VERSION,
  type CatalogSource,
  type ChangedJob,
  type CostDiff,
  type CreditDelta,
  type JobOnOneSide,
  type ManifestDiff,
  type PriceChange,
  type RenamedJob,
} from './cost-diff.js';
import { matchRenames } from './match-renames.js';
import type { DiffJob, DiffPlan, DiffSide } from './plan-document.js';

/**
 * The cost diff of two sides (base: the target branch; head: the change), without guardrails (see
 * `checkGuardrails`). Manifests are matched by their path; a manifest on one side only is all
 * added or all removed. Jobs are matched by id, then the unmatched by payload hash (renames). Pure.
 */
export function computeCostDiff(base: DiffSide, head: DiffSide): CostDiff {
  const manifests = pairPlans(base.plans, head.plans).map(([path, from, to]) => diffManifest(path, from, to));
  const baseCatalog = base.plans[0]?.catalog;
  const headCatalog = head.plans[0]?.catalog;
  const priceChanges = comparePrices(baseCatalog, headCatalog, base.plans, head.plans);
  const monthly = manifests.filter((manifest) => manifest.perMonth !== null);
  return {
    kind: COST_DIFF_KIND,
    schemaVersion: COST_DIFF_VERSION,
    total: delta(
      sum(manifests, (m) => m.perRun.base),
      sum(manifests, (m) => m.perRun.head),
    ),
    totalPerMonth:
      monthly.length === 0
        ? null
        : delta(
            sum(monthly, (m) => m.perMonth!.base),
            sum(monthly, (m) => m.perMonth!.head),
          ),
    catalogs: {
      base: catalogSource(baseCatalog),
      head: catalogSource(headCatalog),
      samePrices: priceChanges.length === 0,
      priceChanges,
      priceDelta: roundCredits(sum(manifests, (m) => m.priceDelta ?? 0)),
    },
    manifests,
    guardrails: [],
  };
}

/** The figures of one side and their change; `percent` against the base. */
export function delta(base: number, head: number): CreditDelta {
  const b = roundCredits(base);
  const h = roundCredits(head);
  const d = roundCredits(h - b);
  return { base: b, head: h, delta: d, percent: b === 0 ? null : Math.round((d / b) * 1000) / 10 };
}

function diffManifest(path: string, base: DiffPlan | undefined, head: DiffPlan | undefined): ManifestDiff {
  const baseJobs = base?.jobs ?? [];
  const headJobs = head?.jobs ?? [];
  const headById = new Map(headJobs.map((job) => [job.id, job] as const));
  const baseIds = new Set(baseJobs.map((job) => job.id));
  const changed: ChangedJob[] = [];
  const gone: DiffJob[] = [];
  let unchanged = 0;
  let priceDelta = 0;
  for (const job of baseJobs) {
    const now = headById.get(job.id);
    if (now === undefined) {
      gone.push(job);
      continue;
    }
    const samePayload = job.payloadHash === now.payloadHash;
    if (samePayload && job.credits === now.credits) {
      unchanged++;
      continue;
    }
    if (samePayload) priceDelta += now.credits - job.credits;
    const fields = samePayload ? [] : changedFields(job, now);
    changed.push({
      id: job.id,
      baseModel: job.model,
      headModel: now.model,
      credits: delta(job.credits, now.credits),
      changed: fields.map((field) => field.path),
      ...(fields.length === 0 ? {} : { changes: fields }),
    });
  }
  const fresh = headJobs.filter((job) => !baseIds.has(job.id));
  const matched = matchRenames(gone, fresh);
  const renamed: RenamedJob[] = matched.renames.map(({ base: from, head: to }) => {
    priceDelta += to.credits - from.credits;
    return { from: from.id, to: to.id, credits: delta(from.credits, to.credits) };
  });
  const scheduleMoved =
    base !== undefined &&
    head !== undefined &&
    (base.schedule?.label ?? null) !== (head.schedule?.label ?? null);
  const schedule = (head === undefined ? base?.schedule : head.schedule) ?? null;
  const perRun = delta(base?.total ?? 0, head?.total ?? 0);
  const counts = {
    base: baseJobs.length,
    head: headJobs.length,
    added: matched.added.length,
    removed: matched.removed.length,
    changed: changed.length,
    renamed: renamed.length,
    unchanged,
  };
  const change =
    base === undefined
      ? 'added'
      : head === undefined
        ? 'removed'
        : counts.added + counts.removed + counts.changed + counts.renamed === 0 &&
            perRun.delta === 0 &&
            !scheduleMoved
          ? 'unchanged'
          : 'changed';
  return {
    path,
    pipeline: (head ?? base)!.pipeline,
    change,
    schedule,
    ...(scheduleMoved ? { scheduleBefore: base.schedule } : {}),
    perRun,
    perMonth: perMonth(base, head),
    counts,
    jobs: {
      added: matched.added.map(oneSide),
      removed: matched.removed.map(oneSide),
      changed,
      renamed,
    },
    byModel: byModel(baseJobs, headJobs),
    byAxisValue: byAxisValue(baseJobs, headJobs),
    priceDelta: roundCredits(priceDelta),
  };
}

/**
 * Each side per month by its own schedule, or the other side's when it has none (a schedule added
 * in the change is not an increase from nothing); `null` when neither side has one.
 */
function perMonth(base: DiffPlan | undefined, head: DiffPlan | undefined): CreditDelta | null {
  const baseSchedule: PlanSchedule | null = base?.schedule ?? head?.schedule ?? null;
  const headSchedule: PlanSchedule | null = head?.schedule ?? base?.schedule ?? null;
  if (baseSchedule === null || headSchedule === null) return null;
  return delta(
    (base?.total ?? 0) * baseSchedule.runsPerMonth,
    (head?.total ?? 0) * headSchedule.runsPerMonth,
  );
}

/** Credits and job counts of one group on both sides. */
interface Tally {
  base: number;
  head: number;
  jobs: { base: number; head: number };
}

const newTally = (): Tally => ({ base: 0, head: 0, jobs: { base: 0, head: 0 } });

function byModel(baseJobs: readonly DiffJob[], headJobs: readonly DiffJob[]): ManifestDiff['byModel'] {
  const groups = new Map<string, Tally>();
  const add = (jobs: readonly DiffJob[], side: 'base' | 'head'): void => {
    for (const job of jobs) {
      let group = groups.get(job.model);
      if (group === undefined) groups.set(job.model, (group = newTally()));
      group[side] += job.credits;
      group.jobs[side] += 1;
    }
  };
  add(baseJobs, 'base');
  add(headJobs, 'head');
  return largestFirst(
    [...groups].map(([model, group]) => ({ model, ...delta(group.base, group.head), jobs: group.jobs })),
    (g) => g.model,
  );
}

/** Per axis, per value label; labels are made once per distinct value (a few per axis). */
function byAxisValue(
  baseJobs: readonly DiffJob[],
  headJobs: readonly DiffJob[],
): ManifestDiff['byAxisValue'] {
  const axes = new Map<string, Map<string, Tally>>();
  const labels = new Map<MatrixValue, string>();
  const labelOf = (value: MatrixValue | undefined): string => {
    if (value === undefined || (typeof value === 'object' && value !== null)) return axisValueLabel(value);
    let label = labels.get(value);
    if (label === undefined) labels.set(value, (label = axisValueLabel(value)));
    return label;
  };
  const add = (jobs: readonly DiffJob[], side: 'base' | 'head'): void => {
    for (const job of jobs) {
      for (const axis in job.matrixValues) {
        let values = axes.get(axis);
        if (values === undefined) axes.set(axis, (values = new Map<string, Tally>()));
        const label = labelOf(job.matrixValues[axis]);
        let group = values.get(label);
        if (group === undefined) values.set(label, (group = newTally()));
        group[side] += job.credits;
        group.jobs[side] += 1;
      }
    }
  };
  add(baseJobs, 'base');
  add(headJobs, 'head');
  const rows: ManifestDiff['byAxisValue'] = [];
  for (const [axis, values] of axes) {
    for (const [value, group] of values)
      rows.push({ axis, value, ...delta(group.base, group.head), jobs: group.jobs });
  }
  return largestFirst(rows, (row) => `${row.axis}\u0000${row.value}`);
}

/** Largest |delta| first, then by name. */
function largestFirst<T extends { delta: number }>(rows: T[], name: (row: T) => string): T[] {
  return rows.sort((a, b) => {
    if (a.delta !== b.delta && Math.abs(b.delta) !== Math.abs(a.delta))
      return Math.abs(b.delta) - Math.abs(a.delta);
    const x = name(a);
    const y = name(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

function oneSide(job: DiffJob): JobOnOneSide {
  return { id: job.id, model: job.model, credits: job.credits };
}

function catalogSource(catalog: PlanCatalog | undefined): CatalogSource {
  if (catalog === undefined) return { source: 'file', pricesHash: '' };
  return {
    source: catalog.source,
    ...(catalog.path === undefined ? {} : { path: catalog.path }),
    ...(catalog.fallbackFor === undefined ? {} : { fallbackFor: catalog.fallbackFor }),
    ...(catalog.fetchedAt === undefined ? {} : { fetchedAt: catalog.fetchedAt }),
    pricesHash: catalog.pricesHash,
  };
}

/**
 * The models either side's jobs use whose price rule differs between the two catalogs (a model the
 * plans do not use is not news, whatever its price did).
 */
function comparePrices(
  base: PlanCatalog | undefined,
  head: PlanCatalog | undefined,
  basePlans: readonly DiffPlan[],
  headPlans: readonly DiffPlan[],
): PriceChange[] {
  if (base === undefined || head === undefined || base.pricesHash === head.pricesHash) return [];
  const used = new Set<string>();
  for (const plan of [...basePlans, ...headPlans]) for (const job of plan.jobs) used.add(job.model);
  const changes: PriceChange[] = [];
  for (const model of [...used].sort()) {
    const before = base.prices[model];
    const after = head.prices[model];
    if (before === after) continue;
    changes.push({
      model,
      ...(before === undefined ? {} : { base: before }),
      ...(after === undefined ? {} : { head: after }),
    });
  }
  return changes;
}

/**
 * The manifests of both sides, paired by path, then the unpaired by pipeline name (the base side
 * planned from another folder, e.g. a checkout of the target branch); in path order (the head's path).
 */
function pairPlans(
  basePlans: readonly DiffPlan[],
  headPlans: readonly DiffPlan[],
): [string, DiffPlan | undefined, DiffPlan | undefined][] {
  const baseByPath = new Map(basePlans.map((plan) => [plan.manifestFile, plan] as const));
  const pairs: [string, DiffPlan | undefined, DiffPlan | undefined][] = [];
  const unpairedHead: DiffPlan[] = [];
  for (const plan of headPlans) {
    const from = baseByPath.get(plan.manifestFile);
    if (from === undefined) unpairedHead.push(plan);
    else {
      pairs.push([plan.manifestFile, from, plan]);
      baseByPath.delete(plan.manifestFile);
    }
  }
  const baseByName = new Map<string, DiffPlan>();
  for (const plan of baseByPath.values())
    if (!baseByName.has(plan.pipeline)) baseByName.set(plan.pipeline, plan);
  for (const plan of unpairedHead) {
    const from = baseByName.get(plan.pipeline);
    if (from !== undefined) {
      baseByName.delete(plan.pipeline);
      baseByPath.delete(from.manifestFile);
    }
    pairs.push([plan.manifestFile, from, plan]);
  }
  for (const plan of baseByPath.values()) pairs.push([plan.manifestFile, plan, undefined]);
  return pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function sum<T>(items: readonly T[], figure: (item: T) => number): number {
  let total = 0;
  for (const item of items) total += figure(item);
  return total;
}
