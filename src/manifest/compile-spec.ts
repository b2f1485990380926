import { bindValueNames, compileValue, type ValueNode } from './compile-value.js';
import { getMatrixAxes, lookupMatrixName, matrixValueText, type MatrixCombination } from './expand-matrix.js';
import type { VarValue } from './resolve-vars.js';
import type { ResolveName } from './template.js';
import { formatYamlPath } from './yaml-path.js';
import type { JobKind } from '../kinds/types.js';
import type {
  ExpandedJob,
  JobSpec,
  LoadedManifest,
  SourceLocation,
  ValidationIssue,
  YamlPath,
} from './types.js';

/** The kind of a job that names none, and whose manifest `defaults` name none either. */
export const DEFAULT_JOB_KIND: JobKind = 'image';

/** A job entry with its templates compiled, ready to render once per matrix combination. */
export interface CompiledSpec {
  kind: JobKind;
  modelSource: string;
  origins: ExpandedJob['origins'];
  id: ValueNode;
  model: ValueNode;
  prompt: ValueNode | undefined;
  params: [string, ValueNode][];
}

/** Merges defaults under a job entry and compiles its templates; undefined when it cannot expand. */
export function compileSpec(
  loaded: LoadedManifest,
  spec: JobSpec,
  specIndex: number,
  issues: ValidationIssue[],
): CompiledSpec | undefined {
  const locate = (path: YamlPath): SourceLocation => loaded.locate(path);
  const jobPath: YamlPath = ['jobs', specIndex];
  const defaults = loaded.manifest.defaults ?? {};
  const modelSource = spec.model ?? defaults.model;
  if (modelSource === undefined) {
    issues.push({
      severity: 'error',
      code: 'missing-model',
      message: `jobs[${specIndex}] (id "${spec.id}") names no model, and defaults.model is not set`,
      location: locate(jobPath),
      hint: 'add model: <id> to the job or under defaults: (see `runner models`)',
    });
    return undefined;
  }
  let broken = false;
  const onError = (path: YamlPath, message: string, offset: number): void => {
    broken = true;
    issues.push({
      severity: 'error',
      code: 'template-syntax',
      message: `invalid template in ${formatYamlPath(path)}: ${message}`,
      location: locateIn(loaded, path, offset),
      hint: 'write {{ name }} to insert a variable, or \\{{ for a literal "{{"',
    });
  };
  const origins: ExpandedJob['origins'] = {
    job: jobPath,
    model: spec.model !== undefined ? [...jobPath, 'model'] : ['defaults', 'model'],
    params: {},
  };
  if (spec.prompt !== undefined) origins.prompt = [...jobPath, 'prompt'];
  const params: [string, ValueNode][] = [];
  const merged = { ...defaults.params, ...spec.params };
  for (const name of Object.keys(merged)) {
    const own = spec.params !== undefined && Object.hasOwn(spec.params, name);
    const path: YamlPath = own ? [...jobPath, 'params', name] : ['defaults', 'params', name];
    origins.params[name] = path;
    params.push([name, compileValue(merged[name], path, onError)]);
  }
  const compiled: CompiledSpec = {
    kind: spec.kind ?? defaults.kind ?? DEFAULT_JOB_KIND,
    modelSource,
    origins,
    id: compileValue(spec.id, [...jobPath, 'id'], onError),
    model: compileValue(modelSource, origins.model, onError),
    prompt:
      spec.prompt === undefined ? undefined : compileValue(spec.prompt, [...jobPath, 'prompt'], onError),
    params,
  };
  return broken ? undefined : compiled;
}

/** Where character `offset` of the string at `path` is written, when the manifest can tell. */
export function locateIn(loaded: LoadedManifest, path: YamlPath, offset: number): SourceLocation {
  return loaded.locateInValue?.(path, offset) ?? loaded.locate(path);
}

/** Names a template may use in this job entry (for did-you-mean hints). */
export function knownNames(vars: Record<string, VarValue>, spec: JobSpec): string[] {
  const names = ['date', 'index', 'job.kind', 'job.model', ...Object.keys(vars)];
  if (spec.matrix) {
    names.push(...getMatrixAxes(spec.matrix).map(([name]) => name));
    for (const entry of spec.matrix.include ?? []) names.push(...Object.keys(entry));
  }
  return [...new Set(names)];
}

/** The job being rendered, which one {@link createResolver} per job entry reads (no closure per job). */
export interface RenderingJob {
  combination: MatrixCombination;
  /** Position of the job within its job entry, for `{{ index }}`. */
  index: number;
  /** `{{ job.model }}`: the entry's model as written until the job's model is rendered. */
  model: string;
}

/** Resolves the names of a template for whichever job `current` holds when it is called. */
export function createResolver(
  current: RenderingJob,
  vars: Record<string, string | number | boolean> | undefined,
  env: Record<string, string | undefined>,
  date: string,
  kind: JobKind,
): ResolveName {
  return (name) => {
    if (name.startsWith('env.')) return env[name.slice(4)];
    const fromMatrix = lookupMatrixName(current.combination, name);
    if (fromMatrix !== undefined) return matrixValueText(fromMatrix);
    switch (name) {
      case 'date':
        return date;
      case 'index':
        return String(current.index);
      case 'job.kind':
        return kind;
      case 'job.model':
        return current.model;
    }
    return vars !== undefined && Object.hasOwn(vars, name) ? String(vars[name]) : undefined;
  };
}

/**
 * The entry's values with every name that reads the same for each of its jobs written in once, as
 * `resolve` gives it: `env.*`, `date`, `job.kind` and vars, unless a matrix key (or the head of a
 * dotted name) could give the name first. `index`, `job.model`, the matrix's names and undefined names
 * stay references, rendered (or reported missing) per job as before. Same text for every job; a
 * var in a matrix's prompt was a resolver call per job.
 */
export function bindEntryConstants(
  compiled: CompiledSpec,
  spec: JobSpec,
  resolve: ResolveName,
): CompiledSpec {
  const matrixKeys = new Set<string>();
  if (spec.matrix) {
    for (const [name] of getMatrixAxes(spec.matrix)) matrixKeys.add(name);
    for (const entry of spec.matrix.include ?? []) for (const key of Object.keys(entry)) matrixKeys.add(key);
  }
  const constantText: ResolveName = (name) => {
    // `env.*` is read before the matrix (see `createResolver`); the rest only when no combination can hold it.
    if (!name.startsWith('env.')) {
      if (name === 'index' || name === 'job.model') return undefined;
      if (matrixKeys.has(name) || matrixKeys.has(name.split('.')[0]!)) return undefined;
    }
    return resolve(name);
  };
  return {
    ...compiled,
    id: bindValueNames(compiled.id, constantText),
    model: bindValueNames(compiled.model, constantText),
    prompt: compiled.prompt && bindValueNames(compiled.prompt, constantText),
    params: compiled.params.map(([name, node]) => [name, bindValueNames(node, constantText)]),
  };
}
