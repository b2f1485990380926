import { allJobKinds, getJobKind, isRunnableModel, type JobKind } from '../kinds/index.js';
import type {
  ExpandedJob,
  LocalFileRef,
  SourceLocation,
  ValidationIssue,
  YamlPath,
} from '../manifest/types.js';
import { computeJobCredits } from './job-credits.js';
import { hashPayload } from './payload-hash.js';
import type { PlannedJob, PlannedParamValue } from '../manifest/planned-job.js';
import type { Model } from '../service/types.js';
import { checkParams, paramPath, type ReportParamIssue } from './check-params.js';
import { checkCatalogCreditCost, readCredits } from '../service/credit-cost.js';
import { compileModelConfig, type CompiledModelConfig } from './config-schema.js';
import {
  REFERENCE_IMAGES_PARAM,
  describeImageModelRefusal,
  findSubscriptionImageModel,
} from './image-rules.js';
import { describePromptIssue } from './prompt-issue.js';
import { isRemoteUrl, resolveLocalFile, type FileInfoReader, type LocalFileProblem } from './local-files.js';
import { didYouMean } from '../suggest.js';
import { sameJsonValue } from '../same-json-value.js';

/** What validation needs from its surroundings; the only I/O is `fileInfo`. */
export interface CatalogValidationContext {
  /** Source position of a YAML path (`LoadedManifest.locate`). */
  locate(path: YamlPath): SourceLocation;
  /** Position of a map key (`LoadedManifest.locateKey`); unknown params point at their name with it. */
  locateKey?(path: YamlPath): SourceLocation;
  /** Absolute directory of the manifest; local files resolve against it. */
  manifestDir: string;
  /** Facts about a local file; see `createFileInfoReader` in `read-file-info.ts`. */
  fileInfo: FileInfoReader;
  /** @default DEFAULT_MAX_LOCAL_FILE_BYTES (20 MiB) */
  maxFileBytes?: number;
  /**
   * Refuse a `kind: image` job of an `image` model other than the catalog's subscription image model:
   * the image job endpoint takes that one only (spec 4.3; issue #33.16), so the service would refuse the
   * create. validate, plan and apply set it (`app/`). @default false: the check of a model's form
   * alone, as the unit tests of params make it on catalogs of several image models.
   */
  checkImageEndpointModel?: boolean;
}

interface Env {
  ctx: CatalogValidationContext;
  /** `ctx.fileInfo`, asked at most once per absolute path. */
  fileInfo: FileInfoReader;
  models: Map<string, Model>;
  issues: ValidationIssue[];
  files: Map<string, { ref: LocalFileRef } | { problem: LocalFileProblem }>;
  warnedUnchecked: Set<string>;
  /** The catalog's subscription image model (the only one the image endpoint takes), when it tells. */
  subscriptionImage: Model | undefined;
  /** Whether checked jobs may share their params objects (see `createJobValidator`). */
  shareChecked: boolean;
  /** The last job whose model and params raised nothing, when `shareChecked`. */
  lastClean?: CleanCheck;
  /** See `JobValidatorOptions.promptHasWords`. */
  promptHasWords: ((job: ExpandedJob) => boolean) | undefined;
}

/** How {@link createJobValidator} may save work; every option leaves the issues and results as they are. */
export interface JobValidatorOptions {
  /**
   * A job of the same entry, kind and model as the previous one, with params equal to its params, gets
   * the previous job's {@link CheckedJob} (the same objects, which the caller then never mutates) when
   * that job's model and params raised no issue; only its prompt is checked. @default false
   */
  shareChecked?: boolean;
  /**
   * True only for a job whose prompt surely holds a text that is not too short (`isPromptTooShort`
   * of some part of it is false, so of the whole too): such a job's prompt is not looked at again.
   */
  promptHasWords?: (job: ExpandedJob) => boolean;
}

/** What checking a job's model and params gave, for the next job of the same entry, model and params. */
interface CleanCheck {
  job: ExpandedJob;
  compiled: CompiledModelConfig;
  checked: CheckedJob;
}

/**
 * Stage two of validation: every expanded job against the model catalog. Checks that the model
 * exists (did-you-mean otherwise), that its category fits the job kind, that params match the
 * model's config (types, options, ranges, required, unknown names, `maxRefImages`), spec 4.3's rules
 * for image jobs, and that local files exist and are images. Returns every issue found, and a
 * {@link PlannedJob} (defaults applied, files as refs, credits, payload hash) for each job without
 * errors. Each distinct local path is read once; each model's config is compiled once.
 */
export function validateJobsAgainstCatalog(
  jobs: readonly ExpandedJob[],
  catalog: readonly Model[],
  ctx: CatalogValidationContext,
): { planned: PlannedJob[]; issues: ValidationIssue[] } {
  const validator = createJobValidator(catalog, ctx);
  const planned: PlannedJob[] = [];
  for (const job of jobs) {
    const checked = validator.check(job);
    if (checked !== undefined) planned.push(toPlannedJob(job, checked));
  }
  return { planned, issues: validator.issues };
}

/** A job that passed stage two: what its {@link PlannedJob} is made of, before any hashing. */
export interface CheckedJob {
  /** The params sent: as written, files as refs, the model config's defaults applied. */
  params: Record<string, PlannedParamValue>;
  /** The params as written (files as refs), without defaults: what the job's identity hashes. */
  written: Record<string, PlannedParamValue>;
  /** Estimated credits of one attempt. */
  credits: number;
}

/** {@link validateJobsAgainstCatalog} one job at a time (same checks, same issues, same order). */
export interface JobValidator {
  /** Checks one job; `undefined` when it has an error. Its issues are added to {@link issues}. */
  check(job: ExpandedJob): CheckedJob | undefined;
  readonly issues: ValidationIssue[];
}

/**
 * A {@link JobValidator} over a catalog; each distinct local path is read once. `shareChecked`: a job
 * of the same entry, kind and model as the previous one, with params equal to its params, gets the
 * previous job's {@link CheckedJob} (the same objects, which the caller then never mutates) when that
 * job's model and params raised no issue; only its prompt is checked. The jobs of a matrix entry
 * whose params have no template are all such jobs: checking each job's params against the catalog
 * was 9 % of planning 1,000,000 of them (`--cpu-prof`).
 */
export function createJobValidator(
  catalog: readonly Model[],
  ctx: CatalogValidationContext,
  { shareChecked = false, promptHasWords }: JobValidatorOptions = {},
): JobValidator {
  const models = new Map<string, Model>();
  for (const model of catalog) if (!models.has(model.slug)) models.set(model.slug, model);
  const env: Env = {
    ctx,
    fileInfo: memoizeReader(ctx.fileInfo),
    models,
    issues: [],
    files: new Map(),
    warnedUnchecked: new Set(),
    subscriptionImage:
      ctx.checkImageEndpointModel === true ? findSubscriptionImageModel(models.values()) : undefined,
    shareChecked,
    promptHasWords,
  };
  return { check: (job) => validateJob(job, env), issues: env.issues };
}

/** The planned job of a checked one: its payload hashes (SHA-256 of canonical JSON) and back-references. */
export function toPlannedJob(job: ExpandedJob, checked: CheckedJob): PlannedJob {
  const plannedJob: PlannedJob = {
    id: job.id,
    kind: job.kind,
    model: job.model,
    params: checked.params,
    estimatedCredits: checked.credits,
    payloadHash: hashCheckedJob(job, checked),
    source: { matrixValues: job.matrixValues, specIndex: job.specIndex, origins: job.origins },
  };
  if (job.prompt !== undefined) plannedJob.prompt = job.prompt;
  return plannedJob;
}

function validateJob(job: ExpandedJob, env: Env): CheckedJob | undefined {
  const clean = env.lastClean;
  // Most jobs of a matrix entry end here, before the two closures below are made for them.
  if (
    clean !== undefined &&
    isLike(job, clean.job) &&
    (env.promptHasWords?.(job) === true || describePromptIssue(job, clean.compiled) === undefined)
  )
    return clean.checked;
  let hasError = false;
  let seen: Set<string> | undefined;
  const add = (
    severity: 'error' | 'warning',
    code: string,
    message: string,
    path: YamlPath,
    hint?: string,
    atKey = false,
  ) => {
    if (severity === 'error') hasError = true;
    const location = atKey && env.ctx.locateKey ? env.ctx.locateKey(path) : env.ctx.locate(path);
    const issue: ValidationIssue = { severity, code, message, jobId: job.id, location };
    if (hint !== undefined) issue.hint = hint;
    env.issues.push(issue);
  };
  const report: ReportParamIssue = (issue) => {
    if (issue.param !== undefined) {
      const key = [issue.param, ...(issue.rest ?? [])].join('/');
      seen ??= new Set();
      if (seen.has(key)) return;
      seen.add(key);
    }
    if (issue.code === 'params-not-checked') {
      if (env.warnedUnchecked.has(job.model)) return;
      env.warnedUnchecked.add(job.model);
    }
    const atKey =
      issue.code === 'unknown-param' && issue.param !== undefined && issue.param in job.origins.params;
    add(
      issue.severity,
      issue.code,
      issue.message,
      paramPath(job, issue.param, issue.rest),
      issue.hint,
      atKey,
    );
  };

  if (clean !== undefined && isLike(job, clean.job)) {
    checkPrompt(job, clean.compiled, add);
    return hasError ? undefined : clean.checked;
  }
  const issuesBefore = env.issues.length;
  const model = env.models.get(job.model);
  if (model === undefined) {
    const categories = getJobKind(job.kind).categories;
    const hint =
      didYouMean(job.model, runnableSlugs(env.models)) ??
      listModels(env.models, (m) => categories.includes(m.category));
    add(
      'error',
      'unknown-model',
      `unknown model ${JSON.stringify(job.model)}: not in the catalog`,
      job.origins.model,
      hint,
    );
    return undefined;
  }
  const adapter = getJobKind(job.kind);
  if (!adapter.categories.includes(model.category)) {
    const hint = listModels(env.models, (m) => adapter.categories.includes(m.category));
    add('error', 'wrong-category', describeWrongCategory(job, model), job.origins.model, hint);
  }
  const refusal =
    job.kind === 'image' && model.category === 'image' && env.subscriptionImage !== undefined
      ? describeImageModelRefusal(model, env.subscriptionImage)
      : undefined;
  if (refusal !== undefined)
    add('error', 'image-model-not-accepted', refusal.message, job.origins.model, refusal.hint);
  const creditCost = readCredits(model.creditCost);
  if (creditCost === undefined) {
    add(
      'error',
      'invalid-credit-cost',
      checkCatalogCreditCost(model) ?? '',
      job.origins.model,
      'the service (or the --catalog file) sent an impossible price; nothing of this model is created until it is fixed',
    );
  }
  const compiled = compileModelConfig(model);
  const modelIssues = env.issues.length - issuesBefore;
  checkPrompt(job, compiled, add);
  const paramsFrom = env.issues.length;
  checkParams(job, compiled, report);
  const written = resolveWrittenParams(job, compiled, env, report);
  const params = applyDefaults(written, compiled);
  if (hasError || creditCost === undefined) return undefined;

  const { credits, unreadable } = computeJobCredits(creditCost, compiled, params);
  for (const name of unreadable) {
    report({
      severity: 'warning',
      code: 'cost-multiplier-not-numeric',
      message: `param ${JSON.stringify(name)} multiplies the credit cost but its value ${JSON.stringify(params[name])} is not a number; it is counted as 1`,
      param: name,
    });
  }
  const checked = { params, written, credits };
  if (env.shareChecked && modelIssues === 0 && env.issues.length === paramsFrom)
    env.lastClean = { job, compiled, checked };
  return checked;
}

/** Whether `job` would raise what `clean` raised, prompt aside: same entry, kind, model and params. */
function isLike(job: ExpandedJob, clean: ExpandedJob): boolean {
  return (
    job.origins === clean.origins &&
    job.kind === clean.kind &&
    job.model === clean.model &&
    sameJsonValue(job.params, clean.params)
  );
}

function checkPrompt(
  job: ExpandedJob,
  compiled: CompiledModelConfig,
  add: (severity: 'error' | 'warning', code: string, message: string, path: YamlPath) => void,
): void {
  const issue = describePromptIssue(job, compiled);
  if (issue !== undefined)
    add(issue.severity, issue.code, issue.message, job.origins.prompt ?? job.origins.job);
}

/**
 * The params as written: the job's params with local paths in upload fields (and an image job's
 * `referenceImages`) turned into file refs.
 */
function resolveWrittenParams(
  job: ExpandedJob,
  compiled: CompiledModelConfig,
  env: Env,
  report: ReportParamIssue,
): Record<string, PlannedParamValue> {
  const params: Record<string, PlannedParamValue> = { ...job.params };
  const resolveOne = (written: string, param: string, rest: (string | number)[]): string | LocalFileRef => {
    if (isRemoteUrl(written)) return written;
    let result = env.files.get(written);
    if (result === undefined) {
      result = resolveLocalFile(written, env.ctx.manifestDir, env.fileInfo, env.ctx.maxFileBytes);
      env.files.set(written, result);
    }
    if ('ref' in result) return result.ref;
    report({ severity: 'error', ...result.problem, param, rest });
    return written;
  };
  for (const [name, value] of Object.entries(job.params)) {
    const param = compiled.params.get(name);
    const isList = param?.upload === 'list' || (job.kind === 'image' && name === REFERENCE_IMAGES_PARAM);
    if (isList && Array.isArray(value) && value.every((item) => typeof item === 'string')) {
      params[name] = value.map((item: string, index) => resolveOne(item, name, [index]));
    } else if (param?.upload === 'single' && typeof value === 'string' && value !== '') {
      params[name] = resolveOne(value, name, []);
    }
  }
  return params;
}

/** The params sent to the service: the written ones, then the config's defaults for params left out. */
function applyDefaults(
  written: Record<string, PlannedParamValue>,
  compiled: CompiledModelConfig,
): Record<string, PlannedParamValue> {
  const params = { ...written };
  for (const [name, value] of compiled.defaults) {
    if (params[name] === undefined) params[name] = typeof value === 'object' ? structuredClone(value) : value;
  }
  return params;
}

/**
 * A checked job's identity hash (its `payloadHash`). A job's identity comes from what the user wrote;
 * the catalog only validates it. Catalog defaults stay out of the hash, so a default the service
 * changes does not turn an open paid job into a "changed" one (issue #11.2). The hash releases up to
 * 0.1.0 journaled, defaults folded in, is `legacyPayloadHash` of the params sent, computed only when
 * a journal needs it.
 */
export function hashCheckedJob(job: ExpandedJob, checked: CheckedJob): string {
  return hashPayload({ kind: job.kind, model: job.model, prompt: job.prompt, params: checked.written });
}

function memoizeReader(read: FileInfoReader): FileInfoReader {
  const cache = new Map<string, ReturnType<FileInfoReader>>();
  return (path) => {
    if (!cache.has(path)) cache.set(path, read(path));
    return cache.get(path);
  };
}

/** Slugs of the models some job kind can run: the only ones worth suggesting for a misspelled model. */
function runnableSlugs(models: Map<string, Model>): string[] {
  return [...models.values()].filter(isRunnableModel).map((model) => model.slug);
}

function listModels(models: Map<string, Model>, fits: (model: Model) => boolean): string | undefined {
  const slugs = [...models.values()].filter(fits).map((model) => model.slug);
  if (slugs.length === 0) return undefined;
  const shown = slugs.slice(0, 5).map((slug) => JSON.stringify(slug));
  return `models that fit: ${shown.join(', ')}${slugs.length > 5 ? `, and ${slugs.length - 5} more` : ''}`;
}

/**
 * A model of a category no job kind runs (e.g. `video`, `inpaint`) gets a message that says so, not
 * "kind image expects category image", which would send the user looking for the right kind.
 */
function describeWrongCategory(job: { model: string; kind: JobKind }, model: Model): string {
  const adapter = getJobKind(job.kind);
  const base = `model ${JSON.stringify(job.model)} is a "${model.category}" model`;
  if (allJobKinds().every((kind) => !kind.categories.includes(model.category))) {
    return `${base}, and no job kind of the runner can run "${model.category}" models (kinds run ${allJobKinds()
      .map((kind) => `${kind.kind}: ${kind.categories.join('/')}`)
      .join(', ')})`;
  }
  return `${base}; kind "${job.kind}" expects a model of category ${adapter.categories.map((c) => `"${c}"`).join(' or ')}`;
}
