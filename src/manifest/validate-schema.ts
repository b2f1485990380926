import type { ErrorObject, ValidateFunction } from 'ajv';
import { validate as validatePipeline } from '../generated/pipeline-validator.js';
import type { Locator } from './locate.js';
import { didYouMean } from '../suggest.js';
import type { Manifest, ValidationIssue, YamlPath } from './types.js';
import { formatYamlPath, parseInstancePath } from './yaml-path.js';

/** Where the pipeline schema lives; `files` in package.json ships it next to `dist/`. */
export const PIPELINE_SCHEMA_URL = new URL('../../schemas/pipeline.schema.json', import.meta.url);

/**
 * The pipeline schema's validator, compiled from `schemas/pipeline.schema.json` at build time
 * (`npm run schemas`, see scripts/compile-schemas.js): no schema compilation when a command starts.
 */
function getValidator(): ValidateFunction<Manifest> {
  return validatePipeline as ValidateFunction<Manifest>;
}

/** What the schema says about a manifest. */
export interface SchemaCheck {
  issues: ValidationIssue[];
  /**
   * Set when every schema error sits inside entries of `jobs:`: the indexes of those entries. The
   * rest of the manifest is sound, so the other jobs can still be expanded and checked in the same
   * run (every problem at once). Undefined when the manifest is valid or an error lies elsewhere.
   */
  invalidJobs?: ReadonlySet<number>;
  /**
   * Where the errors outside `jobs:` are (ajv instance paths), when some are: a caller that wants the
   * jobs' own errors in the same run may drop these parts and check the jobs anyway.
   */
  outside?: YamlPath[];
}

/**
 * Checks a parsed manifest against `schemas/pipeline.schema.json` and returns every problem as an
 * issue at its `file:line:col`, with readable messages (unknown keys get a did-you-mean), and which
 * job entries are broken when nothing else is.
 */
export function checkManifestSchema(value: unknown, locator: Locator): SchemaCheck {
  const validate = getValidator();
  if (validate(value)) return { issues: [] };
  const errors = validate.errors ?? [];
  // An empty string also fails the id and name patterns; "must not be empty" says it all.
  const empty = new Set(errors.filter((e) => e.keyword === 'minLength').map((e) => e.instancePath));
  const issues = errors
    .filter((error) => error.keyword !== 'propertyNames' && error.keyword !== 'if')
    .filter((error) => !(error.keyword === 'pattern' && empty.has(error.instancePath)))
    .map((error) => toIssue(error, locator));
  const invalidJobs = new Set<number>();
  const outside: YamlPath[] = [];
  for (const error of errors) {
    const path = parseInstancePath(error.instancePath);
    const [first, index] = path;
    if (first === 'jobs' && typeof index === 'number') invalidJobs.add(index);
    else outside.push(path);
  }
  return outside.length > 0 ? { issues, invalidJobs, outside } : { issues, invalidJobs };
}

/** Every schema problem of a manifest as issues (see {@link checkManifestSchema}). */
export function validateManifestSchema(value: unknown, locator: Locator): ValidationIssue[] {
  return checkManifestSchema(value, locator).issues;
}

/** Type guard form of {@link validateManifestSchema} for callers that only need a yes/no. */
export function isValidManifest(value: unknown): value is Manifest {
  return getValidator()(value);
}

function toIssue(error: ErrorObject, locator: Locator): ValidationIssue {
  const base = parseInstancePath(error.instancePath);
  if (error.propertyName !== undefined) return keyIssue(error, base, error.propertyName, locator);
  const where = base.length === 0 ? 'the manifest' : formatYamlPath(base);
  const data: unknown = error.data;
  const location = locator.locate(base);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'additionalProperties': {
      const key = String(params['additionalProperty']);
      const allowed = Object.keys((error.parentSchema?.['properties'] as object | undefined) ?? {});
      const suggestion = didYouMean(key, allowed);
      return {
        severity: 'error',
        code: 'unknown-key',
        message: `unknown key "${key}" in ${where}`,
        location: locator.locateKey([...base, key]),
        hint: [suggestion, `allowed keys: ${allowed.join(', ')}`].filter(Boolean).join(' '),
      };
    }
    case 'required': {
      const key = String(params['missingProperty']);
      const owner = where;
      return {
        severity: 'error',
        code: 'missing-key',
        message: `${owner} is missing the required key "${key}"`,
        location,
      };
    }
    case 'enum': {
      const allowed = (params['allowedValues'] as unknown[]).map(String);
      const issue: ValidationIssue = {
        severity: 'error',
        code: 'invalid-enum',
        message: `${where} must be one of ${allowed.join(', ')}; received ${describe(data)}`,
        location,
      };
      const hint = typeof data === 'string' ? didYouMean(data, allowed) : undefined;
      if (hint !== undefined) issue.hint = hint;
      return issue;
    }
    case 'type':
    case 'const': {
      const expected =
        error.keyword === 'const' ? JSON.stringify(params['allowedValue']) : describeType(params['type']);
      const issue: ValidationIssue = {
        severity: 'error',
        code: 'invalid-type',
        message: `${where} must be ${expected}; received ${describe(data)}`,
        location,
      };
      // `name: 2024` or `id: 5` read as numbers: quoting is the fix, not a different value.
      const quotable = typeof data === 'number' || typeof data === 'boolean';
      if (error.keyword === 'type' && params['type'] === 'string' && quotable) {
        issue.hint = `write it in quotes: "${String(data)}"`;
      }
      return issue;
    }
    case 'minItems':
      return minItemsIssue(base, where, location);
    case 'minProperties':
      return isMatrixPath(base)
        ? {
            severity: 'error',
            code: 'empty-matrix',
            message: `${where} is empty`,
            location,
            hint: 'give it at least one axis (name: [values]) or an include list, or remove it',
          }
        : {
            severity: 'error',
            code: 'invalid-value',
            message: `${where} must name at least one key`,
            location,
          };
    case 'maxLength':
      return {
        severity: 'error',
        code: 'too-long',
        message: `${where} is ${String((data as string).length)} characters long; the maximum is ${String(params['limit'])}`,
        location,
      };
    case 'minLength':
      return { severity: 'error', code: 'invalid-value', message: `${where} must not be empty`, location };
    case 'pattern':
      return patternIssue(base, where, data, location);
    default:
      return {
        severity: 'error',
        code: 'invalid-value',
        message: `${where} ${error.message ?? 'is invalid'}; received ${describe(data)}`,
        location,
      };
  }
}

/** An error about a map key (ajv `propertyNames`): the key's name is the problem, not its value. */
function keyIssue(error: ErrorObject, base: YamlPath, key: string, locator: Locator): ValidationIssue {
  const where = base.length === 0 ? 'the manifest' : formatYamlPath(base);
  const location = locator.locateKey([...base, key]);
  if (error.keyword === 'enum') {
    const allowed = ((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String);
    const issue: ValidationIssue = {
      severity: 'error',
      code: 'unknown-key',
      message: `unknown key "${key}" in ${where}; expected one of ${allowed.join(', ')}`,
      location,
    };
    const hint = didYouMean(key, allowed);
    if (hint !== undefined) issue.hint = hint;
    return issue;
  }
  return {
    severity: 'error',
    code: 'invalid-variable-name',
    message: `"${key}" in ${where} is not a valid variable name`,
    location,
    hint: "use letters, digits and '_', starting with a letter or '_' (templates refer to it as {{ name }})",
  };
}

function minItemsIssue(
  base: YamlPath,
  where: string,
  location: ValidationIssue['location'],
): ValidationIssue {
  const issue: ValidationIssue = {
    severity: 'error',
    code: 'invalid-value',
    message: '',
    ...(location && { location }),
  };
  if (base.length === 1 && base[0] === 'jobs') {
    return {
      ...issue,
      code: 'no-jobs',
      message: 'jobs is empty: the manifest has nothing to run',
      hint: 'list at least one job under jobs:',
    };
  }
  if (isMatrixPath(base.slice(0, -1))) {
    return {
      ...issue,
      code: 'empty-matrix-axis',
      message: `matrix axis "${String(base[base.length - 1])}" in ${formatYamlPath(base.slice(0, -1))} has no values`,
      hint: 'give the axis at least one value, or remove it',
    };
  }
  return { ...issue, message: `${where} must have at least one item` };
}

function patternIssue(
  base: YamlPath,
  where: string,
  data: unknown,
  location: ValidationIssue['location'],
): ValidationIssue {
  const issue: ValidationIssue = {
    severity: 'error',
    code: 'invalid-value',
    message: '',
    ...(location && { location }),
  };
  const received = describe(data);
  if (base.length === 3 && base[0] === 'jobs' && base[2] === 'id') {
    return {
      ...issue,
      code: 'unsafe-id',
      message: `${where} must be usable as a file name; received ${received}`,
      hint: "remove '/', '\\', '..' and control characters from the id",
    };
  }
  if (base.length === 1 && base[0] === 'name') {
    return {
      ...issue,
      code: 'invalid-name',
      message: `name must be letters, digits, '.', '_' or '-', starting with a letter or digit; received ${received}`,
      hint: 'the name becomes a folder under .runner/, so it must be a plain file name',
    };
  }
  return { ...issue, message: `${where} has an invalid format; received ${received}` };
}

function isMatrixPath(path: YamlPath): boolean {
  return path.length === 3 && path[0] === 'jobs' && path[2] === 'matrix';
}

function describeType(type: unknown): string {
  const names = String(type).split(',');
  const words = names.map((name) =>
    name === 'object'
      ? 'a map'
      : name === 'array'
        ? 'a list'
        : name === 'integer'
          ? 'an integer'
          : `a ${name}`,
  );
  return words.length > 1
    ? `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`
    : (words[0] ?? 'valid');
}

/** A short, printable description of a received value: `string "abc"`, `number 3`, `a list`. */
export function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  if (typeof value === 'string') {
    return value.length > 40
      ? `string ${JSON.stringify(value.slice(0, 40))}…`
      : `string ${JSON.stringify(value)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value;
}
