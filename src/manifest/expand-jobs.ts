import { findUnsafeIdReason } from './check-job-id.js';
import { checkJobCount, DEFAULT_MAX_JOBS } from './check-job-count.js';
import { renderValue, type OnMissingNames, type ValueNode } from './compile-value.js';
import {
  bindEntryConstants,
  compileSpec,
  createResolver,
  knownNames,
  locateIn,
  type RenderingJob,
} from './compile-spec.js';
import {
  countMatrixUpperBound,
  iterateMatrix,
  type IndexedCombination,
  type MatrixCombination,
} from './expand-matrix.js';
import { createJobIndex, type JobIndex } from './job-index.js';
import { reportUnmatchedExcludes } from './report-unmatched-excludes.js';
import {
  collectTemplates,
  redactSecrets,
  refuseSecretTemplates,
  secretValues,
  type SecretGuard,
} from './secret-guard.js';
import { REDACTED } from '../redacted.js';
import { resolveVars, type VarOverride, type VarValue } from './resolve-vars.js';
import { checkReservedNames, describeMissingName } from './template-names.js';
import type { CompiledTemplate, ResolveName } from './template.js';
import type {
  ExpandedJob,
  JobSpec,
  LoadedManifest,
  SourceLocation,
  ValidationIssue,
  YamlPath,
} from './types.js';

/** Longest prompt accepted, after templates are rendered. */
export const MAX_PROMPT_LENGTH = 32_000;

/** What expansion needs from outside; nothing is read from `process` or the clock here. */
export interface ExpandContext {
  /** Environment variables for `{{ env.NAME }}`. */
  env: Record<string, string | undefined>;
  /** The run date for `{{ date }}`, YYYY-MM-DD. */
  date: string;
  /** The maxJobs guard from the command line; wins over the manifest's `maxJobs`. @default 1000 */
  maxJobs?: number;
  /** The API key's value: templates may not read it, and it is redacted from whatever renders. */
  secrets?: SecretGuard;
  /** `--var-file` then `--var` overrides of `vars` (later wins). */
  varOverrides?: ReadonlyMap<string, VarOverride>;
  /**
   * The consumer only reads the jobs' params, never changes them: the jobs of an entry whose params
   * have no template then share one params object (each job gets a fresh copy otherwise). What
   * `runner plan` asks: one object per job, and the job checks comparing them key by key, were ~5 %
   * of planning 1,000,000 jobs.
   */
  shareStaticParams?: boolean;
}

/** `jobs` holds the jobs that expanded cleanly; any error in `issues` means the run must not start. */
export interface ExpandJobsResult {
  jobs: ExpandedJob[];
  issues: ValidationIssue[];
}

/**
 * Expands every job entry of a schema-valid manifest: merges `defaults` under it (model and kind:
 * the job's own win; params: merged key by key, the job's own win), expands its matrix, renders
 * templates in the id, model, prompt and every string param, and checks the results. A job with no
 * kind gets {@link DEFAULT_JOB_KIND}; a job with no model (own or default) is an error. Returns all
 * issues at once; the matrix-explosion guard runs before anything is expanded.
 */
export function expandJobs(loaded: LoadedManifest, context: ExpandContext): ExpandJobsResult {
  const stream = streamJobs(loaded, context);
  const jobs: ExpandedJob[] = [];
  // One push per job: spreading a 120,000-job array into push() overflows the call stack.
  for (const job of stream.jobs) jobs.push(job);
  return { jobs, issues: stream.issues };
}

/** {@link expandJobs} one job at a time; see {@link streamJobs}. */
export interface JobStream {
  /** The jobs that expand cleanly, in manifest order; iterate it once. */
  jobs: Generator<ExpandedJob, void, undefined>;
  /** Filled while `jobs` is iterated; complete (whole-run id checks included) once it is done. */
  issues: ValidationIssue[];
  /** Every job by position, the order `jobs` yields them in: ids and matrix values, not the jobs. */
  index: JobIndex;
  /**
   * The literal text of job entry `specIndex`'s prompt (vars and other constants written in), found in
   * every prompt of its jobs; undefined before the entry is expanded, for an entry without a prompt,
   * and when a key's value may be redacted from its prompts.
   */
  promptLiterals(specIndex: number): readonly string[] | undefined;
}

/**
 * {@link expandJobs} without holding the jobs: each job is rendered when the consumer asks for the
 * next one, so a 1,000,000-job matrix costs one job at a time plus the small {@link JobIndex}. The
 * same jobs and issues, in the same order, as `expandJobs`.
 */
export function streamJobs(loaded: LoadedManifest, context: ExpandContext): JobStream {
  const { manifest } = loaded;
  const maxJobs = context.maxJobs ?? manifest.maxJobs ?? DEFAULT_MAX_JOBS;
  const issues = [...checkReservedNames(loaded), ...checkJobCount(loaded, maxJobs)];
  const ids = createJobIndex(loaded, Math.min(maxJobs, countJobsAtMost(loaded)));
  // A matrix that explodes is not expanded whole, but its other mistakes are still reported at once
  // (#33.10): each entry expands a sample of its first combinations, at most maxJobs jobs in all, so
  // the templates, ids and (in stage two) the catalog's checks still see every entry.
  const sampleSize = issues.some((issue) => issue.code === 'too-many-jobs')
    ? Math.max(1, Math.floor(maxJobs / Math.max(1, manifest.jobs.length)))
    : undefined;

  const resolved = resolveVars(loaded, {
    env: context.env,
    date: context.date,
    ...(context.varOverrides === undefined ? {} : { overrides: context.varOverrides }),
    ...(context.secrets === undefined ? {} : { secrets: context.secrets }),
  });
  issues.push(...resolved.issues);
  const promptLiterals = new Map<number, readonly string[]>();
  function* generate(): Generator<ExpandedJob, void, undefined> {
    for (let specIndex = 0; specIndex < manifest.jobs.length; specIndex++) {
      // An entry that failed the schema is reported already; the others are still expanded.
      if (loaded.invalidJobs?.has(specIndex) === true) continue;
      const spec = manifest.jobs[specIndex]!;
      const expanded = expandSpec(
        loaded,
        spec,
        specIndex,
        { ...context, vars: resolved.vars, ...(sampleSize === undefined ? {} : { sampleSize }) },
        issues,
        (id, values) => ids.noteUnexpanded(id, specIndex, values),
        (literals) => promptLiterals.set(specIndex, literals),
      );
      for (const { job, rawIndex, combination } of expanded) {
        ids.add(job.id, specIndex, rawIndex, job.matrixValues === combination ? undefined : job.matrixValues);
        yield job;
      }
    }
    // One by one: a spread of one issue per duplicated id overflows the stack past ~120,000 of them.
    for (const issue of ids.reportIds()) issues.push(issue);
  }
  return {
    jobs: generate(),
    issues,
    index: ids.index,
    promptLiterals: (specIndex) => promptLiterals.get(specIndex),
  };
}

/** A job as {@link expandSpec} yields it, with the matrix combination it came from. */
interface SpecJob {
  job: ExpandedJob;
  /** See `IndexedCombination.rawIndex`; -1 for a job entry without a matrix. */
  rawIndex: number;
  combination: MatrixCombination;
}

function* expandSpec(
  loaded: LoadedManifest,
  spec: JobSpec,
  specIndex: number,
  /** `sampleSize`: expand only the first combinations of the entry (a manifest over maxJobs). */
  context: ExpandContext & { vars: Record<string, VarValue>; sampleSize?: number },
  issues: ValidationIssue[],
  /** Told the id of a job that rendered its id but failed another check: it still counts for duplicates. */
  noteUnexpanded: (id: string, matrixValues: MatrixCombination) => void,
  /** Told the literal parts of the entry's prompt (see `JobStream.promptLiterals`). */
  notePromptLiterals: (literals: readonly string[]) => void,
): Generator<SpecJob, void, undefined> {
  const source = compileSpec(loaded, spec, specIndex, issues);
  if (!source) return;
  const secrets = secretValues(context.secrets);
  const refused = refuseSecretTemplates(
    [source.id, source.model, source.prompt, ...source.params.map(([, node]) => node)].flatMap((node) =>
      collectTemplates(node),
    ),
    context.env,
    secrets,
    (path, offset) => locateIn(loaded, path, offset),
  );
  if (refused.length > 0) {
    issues.push(...refused);
    return;
  }
  const locate = (path: YamlPath): SourceLocation => loaded.locate(path);
  const combinations: Iterable<IndexedCombination> = spec.matrix
    ? takeFirst(iterateMatrix(spec.matrix), context.sampleSize)
    : [{ combination: {}, rawIndex: -1 }];
  const emptyMatrixIssue: ValidationIssue | undefined = spec.matrix && {
    severity: 'warning',
    code: 'empty-matrix-result',
    message: `jobs[${specIndex}] (id "${spec.id}"): exclude removes every combination of the matrix; it produces no jobs`,
    location: locate(['jobs', specIndex, 'matrix', 'exclude']),
  };
  // Issues of the whole entry come before those of its jobs, as when the matrix was expanded first.
  const entryIssues = issues.length;
  if (spec.matrix) reportUnmatchedExcludes(spec.matrix, specIndex, locate, issues);
  const known = knownNames(context.vars, spec);
  const reported = new Set<string>();
  // One issue per problem and job entry, not one per matrix job: a bad var can break 100,000 of them.
  const grouped = new Map<string, { issue: ValidationIssue; count: number }>();
  const reportGrouped = (key: string, issue: ValidationIssue): void => {
    const group = grouped.get(key);
    if (group) group.count++;
    else grouped.set(key, { issue, count: 1 });
  };
  // One resolver and one missing-name reporter per entry, reading the job being rendered: two
  // closures per matrix combination were a part of planning 1,000,000 jobs' garbage.
  const current: RenderingJob = { combination: {}, index: -1, model: source.modelSource };
  let failed = false;
  let renderedId: string | undefined;
  const resolve = createResolver(current, context.vars, context.env, context.date, source.kind);
  const compiled = bindEntryConstants(source, spec, resolve);
  const literals = secrets.length === 0 ? literalText(compiled.prompt) : undefined;
  if (literals !== undefined) notePromptLiterals(literals);
  const onMissing = (path: YamlPath, names: readonly string[], template: CompiledTemplate): void => {
    failed = true;
    const { combination } = current;
    for (const name of names) {
      const key = `${path.join('\u0000')}\u0000${name}`;
      if (reported.has(key)) continue;
      reported.add(key);
      const offset = template.parts.find((part) => typeof part !== 'string' && part.name === name);
      const at = (p: YamlPath): SourceLocation =>
        typeof offset === 'object' ? locateIn(loaded, p, offset.offset) : locate(p);
      const where = { specIndex, idSource: spec.id, combination, known, locate: at };
      issues.push(
        describeMissingName(name, path, renderedId === undefined ? where : { ...where, jobId: renderedId }),
      );
    }
  };
  // Rendered once: a static value never reports a missing name.
  const sharedParams =
    context.shareStaticParams === true && compiled.params.every(([, node]) => node.type === 'static')
      ? renderParams(compiled.params, resolve, onMissing)
      : undefined;
  let index = -1;
  for (const { combination, rawIndex } of combinations) {
    index++;
    failed = false;
    renderedId = undefined;
    current.combination = combination;
    current.index = index;
    current.model = compiled.modelSource;
    const id = renderValue(compiled.id, resolve, onMissing) as string;
    if (!failed) renderedId = id;
    const renderedModel = renderValue(compiled.model, resolve, onMissing) as string;
    current.model = renderedModel;
    const prompt = compiled.prompt && (renderValue(compiled.prompt, resolve, onMissing) as string);
    const params = sharedParams ?? renderParams(compiled.params, resolve, onMissing);
    if (failed) {
      if (renderedId !== undefined) noteUnexpanded(renderedId, combination);
      continue;
    }

    const unsafe = findUnsafeIdReason(id);
    if (unsafe !== undefined) {
      reportGrouped(`unsafe-id\u0000${unsafe}`, {
        severity: 'error',
        code: 'unsafe-id',
        message: `job id ${JSON.stringify(id)} cannot be used as a file name: ${unsafe}`,
        jobId: id,
        location: locate(['jobs', specIndex, 'id']),
        hint: "job ids name download files and state entries; use letters, digits, '-', '_' and '.'",
      });
      continue;
    }
    if (prompt !== undefined && prompt.length > MAX_PROMPT_LENGTH) {
      reportGrouped('too-long', {
        severity: 'error',
        code: 'too-long',
        message: `the rendered prompt is ${prompt.length} characters long; the maximum is ${MAX_PROMPT_LENGTH}`,
        jobId: id,
        location: locate(['jobs', specIndex, 'prompt']),
      });
      noteUnexpanded(id, combination);
      continue;
    }
    // Read-only and the same for every job of the entry: one object, not two copies per job.
    const { origins } = compiled;
    const rendered: ExpandedJob = {
      id,
      kind: compiled.kind,
      model: renderedModel,
      params,
      matrixValues: combination,
      specIndex,
      origins,
    };
    if (prompt !== undefined) rendered.prompt = prompt;
    // The key's value may still arrive through a var, a matrix value or a literal: never let it render.
    // Without a key to look for, no walk and no result object per job.
    const redaction = secrets.length === 0 ? undefined : redactSecrets(rendered, secrets);
    const job = redaction === undefined ? rendered : redaction.value;
    if (redaction?.redacted === true) {
      reportGrouped('secret-redacted', {
        severity: 'warning',
        code: 'secret-redacted',
        message: `job "${job.id}" would contain the API key's value; it was replaced by ${REDACTED}`,
        jobId: job.id,
        location: locate(['jobs', specIndex]),
        hint: 'remove the key from vars, matrix values and params: it would be sent to the service and written to the state',
      });
    }
    yield { job, rawIndex, combination };
  }
  if (emptyMatrixIssue !== undefined && index === -1) issues.splice(entryIssues, 0, emptyMatrixIssue);
  for (const { issue, count } of grouped.values()) {
    issues.push(
      count === 1
        ? issue
        : { ...issue, message: `${issue.message} (and ${count - 1} more jobs of jobs[${specIndex}] alike)` },
    );
  }
}

/** The literal parts of a prompt, as every job of the entry renders them; undefined without a prompt. */
function literalText(prompt: ValueNode | undefined): string[] | undefined {
  if (prompt?.type === 'static') return typeof prompt.value === 'string' ? [prompt.value] : undefined;
  if (prompt?.type !== 'template') return undefined;
  return prompt.template.parts.filter((part): part is string => typeof part === 'string');
}

/** A job's params, each rendered in the order written. */
function renderParams(
  nodes: readonly (readonly [string, ValueNode])[],
  resolve: ResolveName,
  onMissing: OnMissingNames,
): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, node] of nodes) params[name] = renderValue(node, resolve, onMissing);
  return params;
}

/**
 * The first `count` items of `items`, or `items` itself when `count` is undefined (the usual case: a
 * generator around every job's matrix combination cost 3 % of planning 1,000,000 jobs).
 */
function takeFirst<T>(items: Iterable<T>, count: number | undefined): Iterable<T> {
  return count === undefined ? items : takeSome(items, count);
}

function* takeSome<T>(items: Iterable<T>, count: number): Generator<T, void, undefined> {
  let taken = 0;
  for (const item of items) {
    if (taken++ >= count) return;
    yield item;
  }
}

/** The most jobs the manifest's valid entries can give (`checkJobCount`'s count). */
function countJobsAtMost(loaded: LoadedManifest): number {
  let total = 0;
  loaded.manifest.jobs.forEach((spec, index) => {
    if (loaded.invalidJobs?.has(index) !== true)
      total += spec.matrix ? countMatrixUpperBound(spec.matrix) : 1;
  });
  return total;
}
