import { hash } from 'node:crypto';
import { readCredits } from '../service/credit-cost.js';
import type { Model } from '../service/types.js';
import type { CostReport, JobCost, JobStateClass } from './cost-report.js';
import { canonicalJson } from '../canonical-json.js';
import { snapshotPayload, type PayloadSnapshot } from './payload-diff.js';
import type { Targeting } from './select-jobs.js';
import type { Plan } from './types.js';

/** Marks a JSON file as a saved plan; `apply` tells plans from manifests by this, not by extension. */
export const SAVED_PLAN_KIND = 'runner-plan';

/**
 * The saved plan's format version. 2 added where the plan was made (state folder, download folder),
 * the options that decided it (`--max-credits`, `--retry-failed`, `--resend-uncertain`) and each job's
 * decision; a version 1 plan lacks them, so it cannot be applied safely and is refused.
 */
export const SAVED_PLAN_VERSION = 2;

/** A model as the plan priced it: its price and a fingerprint of its config (the input form). */
export interface ModelFingerprint {
  /** `null` when the catalog's figure is unusable (such a model's jobs are never planned). */
  creditCost: number | null;
  /** SHA-256 of the canonical JSON of the model's `config` (null when it has none). */
  configSha256: string;
}

/**
 * What `runner plan --out-plan FILE` writes (mode 0600) and `runner apply FILE` applies: the exact
 * jobs with their expanded payloads and hashes, the inputs that produced them, and fingerprints of the
 * manifest and of every used model, so apply can refuse when any of them changed. Versioned like every
 * JSON output; fields are only ever added within a version.
 */
export interface SavedPlan {
  schemaVersion: typeof SAVED_PLAN_VERSION;
  kind: typeof SAVED_PLAN_KIND;
  createdAt: string;
  pipeline: string;
  /** The run id the plan was made for; apply uses it. */
  runId: string;
  /** `{{ date }}` as rendered into the payloads. */
  date: string;
  manifest: {
    /** As given on the command line. */
    file: string;
    /** Relative to the plan file's folder, so a plan made in one checkout applies in another. */
    path: string;
    /** SHA-256 of the manifest's bytes. */
    sha256: string;
  };
  /**
   * The state the plan was read against: `dir` is the state folder (`--state-dir` or RUNNER_STATE_DIR),
   * absolute as given or relative to the plan file's folder; absent: `.runner/` beside the manifest.
   * Apply reads this state, and refuses a `--state-dir` that names another.
   */
  state: { dir?: string };
  /** The download folder (`--output`), absolute or relative like `state.dir`; absent: apply's default. */
  output?: string;
  /**
   * RUNNER_OUTPUT when the plan was made (the root of default download folders), like `state.dir`:
   * apply uses it in place of its own RUNNER_OUTPUT, so the default folder is the one the plan showed.
   */
  outputRoot?: string;
  /** The inputs besides the manifest that shaped the jobs and what is done with them. */
  inputs: {
    targeting: Targeting;
    /**
     * For each `--replace` id, how many attempts the state held when the plan was made: apply replaces
     * the job only while that is still so, so applying the same plan twice (a CI retry) pays once.
     */
    replaceAfterAttempts?: Record<string, number>;
    /** Var overrides (`--var`, `--var-file`) of declared vars, as name → value. */
    vars: Record<string, string | number | boolean>;
    maxJobs?: number;
    /** `--max-credits`. */
    maxCredits?: number;
    /** `--retry-failed`. */
    retryFailed: boolean;
    /** `--resend-uncertain`. */
    resendUncertain: boolean;
  };
  /** Every model the plan uses. */
  models: Record<string, ModelFingerprint>;
  credits: { total: number; toRun: number; needed: number };
  /**
   * Every job of the plan with its payload and what the plan decided for it: `state` against the run's
   * state then, `toRun` whether apply creates it. Apply refuses the plan when it would create a job the
   * plan did not (the state changed since, or it is another state).
   */
  jobs: (PayloadSnapshot & {
    id: string;
    payloadHash: string;
    estimatedCredits: number;
    state: JobStateClass;
    toRun: boolean;
  })[];
}

/** SHA-256 (hex) of some bytes or text. */
export function sha256(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** The price and config fingerprint of a catalog model. */
export function fingerprintModel(model: Model): ModelFingerprint {
  return {
    creditCost: readCredits(model.creditCost) ?? null,
    configSha256: sha256(canonicalJson(model.config ?? null)),
  };
}

/** Builds the saved plan from a prepared plan and its cost report. Pure. */
export function buildSavedPlan(input: {
  plan: Plan;
  report: Pick<CostReport, 'credits'> & { jobList: Iterable<Pick<JobCost, 'id' | 'state' | 'toRun'>> };
  catalog: readonly Model[];
  manifest: SavedPlan['manifest'];
  runId: string;
  date: string;
  state: SavedPlan['state'];
  output?: string;
  outputRoot?: string;
  inputs: SavedPlan['inputs'];
  now: Date;
}): SavedPlan {
  const decided = new Map<string, Pick<JobCost, 'state' | 'toRun'>>();
  for (const job of input.report.jobList) decided.set(job.id, { state: job.state, toRun: job.toRun });
  const bySlug = new Map(input.catalog.map((model) => [model.slug, model] as const));
  const models: Record<string, ModelFingerprint> = {};
  for (const job of input.plan.jobs) {
    const model = bySlug.get(job.model);
    if (model !== undefined && models[job.model] === undefined) models[job.model] = fingerprintModel(model);
  }
  return {
    schemaVersion: SAVED_PLAN_VERSION,
    kind: SAVED_PLAN_KIND,
    createdAt: input.now.toISOString(),
    pipeline: input.plan.pipeline,
    runId: input.runId,
    date: input.date,
    manifest: input.manifest,
    state: input.state,
    ...(input.output === undefined ? {} : { output: input.output }),
    ...(input.outputRoot === undefined ? {} : { outputRoot: input.outputRoot }),
    inputs: input.inputs,
    models,
    credits: {
      total: input.report.credits.total,
      toRun: input.report.credits.toRun,
      needed: input.report.credits.needed,
    },
    jobs: input.plan.jobs.map((job) => ({
      id: job.id,
      ...snapshotPayload(job),
      payloadHash: job.payloadHash,
      estimatedCredits: job.estimatedCredits,
      // A job missing from the report (none is) counts as to run: the stale check then never misses it.
      state: decided.get(job.id)?.state ?? 'new',
      toRun: decided.get(job.id)?.toRun ?? true,
    })),
  };
}

/** A job apply would create that the saved plan did not: how the plan saw it and how it stands now. */
export interface StaleJob {
  id: string;
  planned: JobStateClass;
  now: JobStateClass;
}

/**
 * The jobs apply would create now that the saved plan said it would not (`stale`; any is a reason to
 * refuse), and those the plan would create that are no longer to run (`settled`: an earlier apply of
 * the same plan made them, so running the rest spends less than reviewed, never more). Pure.
 */
export function compareDecisions(
  saved: SavedPlan,
  now: Iterable<Pick<JobCost, 'id' | 'state' | 'toRun'>>,
): { stale: StaleJob[]; settled: string[] } {
  const planned = new Map(saved.jobs.map((job) => [job.id, job] as const));
  const stale: StaleJob[] = [];
  const settled: string[] = [];
  for (const job of now) {
    const before = planned.get(job.id);
    if (job.toRun && before?.toRun !== true)
      stale.push({ id: job.id, planned: before?.state ?? 'new', now: job.state });
    if (!job.toRun && before?.toRun === true) settled.push(job.id);
  }
  return { stale, settled };
}

/**
 * Everything that differs between a saved plan and the plan made again now from the same inputs:
 * the manifest's bytes, each used model's price or config, and each job (added, removed, payload or
 * price changed, e.g. through an env var or a reference file). Empty means apply may go on. Pure.
 */
export function compareSavedPlan(
  saved: SavedPlan,
  now: { manifestSha256: string; plan: Plan; catalog: readonly Model[] },
): string[] {
  const changes = compareManifest(saved, now.manifestSha256);
  const bySlug = new Map(now.catalog.map((model) => [model.slug, model] as const));
  for (const [slug, before] of Object.entries(saved.models)) {
    const model = bySlug.get(slug);
    if (model === undefined) {
      changes.push(`model ${slug} is no longer in the catalog`);
      continue;
    }
    const after = fingerprintModel(model);
    if (after.creditCost !== before.creditCost) {
      changes.push(
        `model ${slug}'s price changed: creditCost ${String(before.creditCost)} → ${String(after.creditCost)}`,
      );
    }
    if (after.configSha256 !== before.configSha256) {
      changes.push(`model ${slug}'s config (its input form, defaults or bounds) changed`);
    }
  }
  const current = new Map(now.plan.jobs.map((job) => [job.id, job] as const));
  const savedIds = new Set(saved.jobs.map((job) => job.id));
  for (const job of saved.jobs) {
    const again = current.get(job.id);
    if (again === undefined) changes.push(`job ${job.id} is no longer in the plan`);
    else if (again.payloadHash !== job.payloadHash) {
      changes.push(`job ${job.id}'s payload changed (an env var, a var file or a reference file it uses)`);
    } else if (again.estimatedCredits !== job.estimatedCredits) {
      changes.push(
        `job ${job.id}'s price changed: ${job.estimatedCredits} → ${again.estimatedCredits} credits`,
      );
    }
  }
  for (const job of now.plan.jobs)
    if (!savedIds.has(job.id)) changes.push(`job ${job.id} is new in the plan`);
  return changes;
}

/** The manifest's change since the plan, as a one-item list; empty when its bytes are the same. */
export function compareManifest(saved: SavedPlan, manifestSha256: string): string[] {
  if (saved.manifest.sha256 === manifestSha256) return [];
  return [
    `the manifest ${saved.manifest.file} changed (sha256 ${short(saved.manifest.sha256)} → ${short(manifestSha256)})`,
  ];
}

function short(digest: string): string {
  return digest.slice(0, 12);
}

/**
 * The `--replace` ids of a saved plan that are still due: jobs whose attempts are as many as when the
 * plan was made. A job replaced since (by an earlier apply of this plan) is not replaced again.
 */
export function replacementsStillDue(saved: SavedPlan, attemptsNow: (id: string) => number): string[] {
  const after = saved.inputs.replaceAfterAttempts ?? {};
  return saved.inputs.targeting.replace.filter((id) => attemptsNow(id) === (after[id] ?? attemptsNow(id)));
}

/** Whether parsed JSON is a saved plan of this version (by content: `kind` and `schemaVersion`). */
export function isSavedPlan(value: unknown): value is SavedPlan {
  if (typeof value !== 'object' || value === null) return false;
  const plan = value as Partial<SavedPlan>;
  return (
    plan.kind === SAVED_PLAN_KIND &&
    plan.schemaVersion === SAVED_PLAN_VERSION &&
    Array.isArray(plan.jobs) &&
    typeof plan.state === 'object' &&
    plan.state !== null
  );
}
