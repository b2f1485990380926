import { loadCatalog } from '../catalog/load-catalog.js';
import { createFileInfoReader } from '../catalog/read-file-info.js';
import { validateJobsAgainstCatalog } from '../catalog/validate-job.js';
import { collapseIssues } from '../manifest/collapse-issues.js';
import { sortIssues } from '../manifest/sort-issues.js';
import type { ExpandedJob, LoadedManifest, ValidationIssue } from '../manifest/types.js';
import { validateManifestOffline, type OfflineValidationContext } from '../manifest/validate-manifest.js';
import { buildPlan } from '../plan/build-plan.js';
import type { Plan } from '../plan/types.js';
import type { Model } from '../service/types.js';
import type { CommandContext } from './context.js';
import { readSecretGuard } from './read-secrets.js';
import { redactSecrets, secretValues } from '../manifest/secret-guard.js';
import { selectTargets } from './targeting-options.js';
import { loadVarOverrides, type VarFlags } from './var-options.js';
import { isTargeted, NO_TARGETING, type Targeting } from '../plan/select-jobs.js';
import type { ReadDecisions } from '../review/read-decisions.js';
import { collectRejections, selectRejectedJobs, type Rejection } from '../review/select-rejected.js';

export interface PrepareOptions {
  manifestFile: string;
  /** A saved catalog (`runner models --json`); otherwise `fetchCatalog` is asked. */
  catalogFile?: string;
  maxJobs?: number;
  /** The run date for `{{ date }}` (YYYY-MM-DD), or how to find it from the pipeline's name. */
  date: OfflineValidationContext['date'];
  /** `--only` / `--exclude` / `--replace`: which jobs the command covers. */
  targeting?: Targeting;
  /** `--var` / `--var-file`. */
  varFlags?: VarFlags;
  /** `--replace-from`: the decisions file whose rejected jobs the plan covers, for run `runId`. */
  replaceFrom?: { read: Extract<ReadDecisions, { ok: true }>; runId: string };
}

export type Prepared =
  | {
      ok: true;
      loaded: LoadedManifest;
      plan: Plan;
      catalog: Model[];
      issues: ValidationIssue[];
      /** Ids of the jobs `--only` / `--exclude` left out of the plan. */
      leftOut: string[];
      /** The `{{ date }}` rendered into the plan. */
      date: string;
      /** With `replaceFrom`: the jobs the decisions reject (the plan's jobs). */
      rejections?: Rejection[];
      /** With `replaceFrom`: every job of the manifest, for the run's report and index after apply. */
      runJobs?: ExpandedJob[];
    }
  | { ok: false; issues: ValidationIssue[] };

/**
 * The read → validate → plan line shared by validate, plan and apply: stage one offline (YAML, schema,
 * templates, matrix, ids), then every job that survived it against the catalog, so one run reports
 * every problem at once. Nothing here creates a job or spends a credit.
 */
export async function preparePlan(
  ctx: Pick<CommandContext, 'env'> & { global?: Pick<CommandContext['global'], 'apiKeyFile'> },
  options: PrepareOptions,
  fetchCatalog: () => Promise<Model[]>,
): Promise<Prepared> {
  const varInput = await loadVarOverrides(options.varFlags ?? { vars: [], varFiles: [] });
  const secrets = await readSecretGuard(ctx);
  const stageOne = await validateManifestOffline(options.manifestFile, {
    varOverrides: varInput.overrides,
    checkJobsDespiteErrors: true,
    env: ctx.env,
    date: options.date,
    secrets,
    ...(options.maxJobs === undefined ? {} : { maxJobs: options.maxJobs }),
  });
  const { loaded, date } = stageOne;
  stageOne.issues.push(...varInput.issues);
  // --replace-from: the decisions' rejected jobs, as --only and --replace of exactly those would give.
  const review =
    options.replaceFrom === undefined || loaded === undefined
      ? undefined
      : reviewTargets(options.replaceFrom, loaded.manifest.name, stageOne.jobs, secretValues(secrets));
  if (review !== undefined) stageOne.issues.push(...review.issues);
  // The file is checked whole; the catalog checks and the plan cover only the targeted jobs.
  const targets = selectTargets(
    review?.selected ?? stageOne.jobs,
    review?.targeting ?? options.targeting ?? NO_TARGETING,
  );
  stageOne.issues.push(...targets.issues);
  if (
    loaded === undefined ||
    date === undefined ||
    targets.selected.length === 0 ||
    targets.issues.length > 0
  ) {
    return { ok: false, issues: collapseIssues(sortIssues(stageOne.issues)) };
  }

  const catalog =
    options.catalogFile === undefined ? await fetchCatalog() : await loadCatalog(options.catalogFile);
  const stageTwo = validateJobsAgainstCatalog(targets.selected, catalog, {
    locate: (path) => loaded.locate(path),
    ...(loaded.locateKey === undefined ? {} : { locateKey: loaded.locateKey.bind(loaded) }),
    manifestDir: loaded.dir,
    fileInfo: createFileInfoReader(),
    checkImageEndpointModel: true,
  });
  const issues = collapseIssues(sortIssues([...stageOne.issues, ...stageTwo.issues]));
  if (issues.some((issue) => issue.severity === 'error')) return { ok: false, issues };
  const plan = buildPlan({ loaded, planned: stageTwo.planned, warnings: issues });
  const leftOut = review === undefined ? targets.leftOut : [...review.leftOut, ...targets.leftOut];
  return {
    ok: true,
    loaded,
    plan,
    catalog,
    issues,
    leftOut,
    date,
    ...(review === undefined ? {} : { rejections: review.rejections, runJobs: stageOne.jobs }),
  };
}

function reviewTargets<T extends { id: string }>(
  replaceFrom: NonNullable<PrepareOptions['replaceFrom']>,
  pipeline: string,
  jobs: readonly T[],
  secrets: readonly string[],
) {
  const { rejections, issues } = collectRejections(replaceFrom.read, {
    runId: replaceFrom.runId,
    pipeline,
    jobIds: jobs.map((job) => job.id),
  });
  // A note is journaled and shown in reports: the API key never is, as in prompts (README).
  for (const rejection of rejections) {
    if (rejection.note !== undefined) rejection.note = redactSecrets(rejection.note, secrets).value;
  }
  const { selected, leftOut } = selectRejectedJobs(jobs, rejections);
  const targeting: Targeting = { only: [], exclude: [], replace: rejections.map((job) => job.jobId) };
  return { rejections, issues, selected, leftOut, targeting };
}

/** What the manifest commands (validate, plan, apply) are asked about their jobs, from their flags. */
export interface ManifestOptions {
  /** `--catalog FILE`: a saved catalog, checked against offline. */
  catalogFile?: string;
  /** `--max-jobs`: refuse a manifest that expands to more jobs. */
  maxJobs?: number;
  /** `--only` / `--exclude` / `--replace`. */
  targeting: Targeting;
  /** `--var` / `--var-file`. */
  varFlags: VarFlags;
}

/** The prepare options of a manifest command, its `{{ date }}` today's unless given. */
export function toPrepareOptions(
  manifestFile: string,
  options: ManifestOptions,
  date: PrepareOptions['date'] = todayUtc(),
): PrepareOptions {
  const { targeting, varFlags, catalogFile, maxJobs } = options;
  return {
    manifestFile,
    date,
    ...(isTargeted(targeting) ? { targeting } : {}),
    varFlags,
    ...(catalogFile === undefined ? {} : { catalogFile }),
    ...(maxJobs === undefined ? {} : { maxJobs }),
  };
}

/** Today as YYYY-MM-DD in UTC: the default `{{ date }}`. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}
