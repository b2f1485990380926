/**
 * Response shapes from `schemas/api/*.schema.json`, each compiled once on first use. A mismatch is
 * described by field path and JSON type only: values never appear, so a secret in a response cannot
 * leak through an error message.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

export type ApiSchemaName =
  'envelope' | 'model-list' | 'balance' | 'subscription' | 'job-creation' | 'job-record' | 'presign';

export type SchemaCheck<T> = { ok: true; value: T } | { ok: false; problem: string };

let ajv: Ajv | undefined;
const validators = new Map<ApiSchemaName, ValidateFunction>();

/**
 * `src/service/` under vitest and `dist/service/` after tsc are both two levels below the package
 * root, where `schemas/` lives (and ships, see package.json `files`).
 */
function loadSchema(name: ApiSchemaName): unknown {
  const url = new URL(`../../schemas/api/${name}.schema.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as unknown;
}

function getValidator(name: ApiSchemaName): ValidateFunction {
  let validate = validators.get(name);
  if (validate === undefined) {
    ajv ??= new Ajv({ allErrors: false, strict: true, allowUnionTypes: true });
    validate = ajv.compile(loadSchema(name) as object);
    validators.set(name, validate);
  }
  return validate;
}

/**
 * Checks `value` against a schema. `root` names the value in the problem text, e.g. `data` gives
 * `data[0].creditCost: expected number, received string`.
 */
export function checkSchema<T>(name: ApiSchemaName, value: unknown, root: string): SchemaCheck<T> {
  const validate = getValidator(name);
  if (validate(value)) return { ok: true, value: value as T };
  const error = validate.errors?.[0];
  return {
    ok: false,
    problem: error === undefined ? `${root}: invalid` : describeSchemaError(error, value, root),
  };
}

function describeSchemaError(error: ErrorObject, value: unknown, root: string): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const path = formatPath(root, segments);
  switch (error.keyword) {
    case 'required': {
      const missing = String((error.params as { missingProperty?: unknown }).missingProperty);
      return `${formatPath(path, [missing])}: required field is missing`;
    }
    case 'type': {
      const expected = (error.params as { type?: unknown }).type;
      const expectedText = Array.isArray(expected) ? expected.join(' or ') : String(expected);
      return `${path}: expected ${expectedText}, received ${describeJsonType(valueAt(value, segments))}`;
    }
    default:
      return `${path}: ${error.message ?? 'invalid'}`;
  }
}

function formatPath(root: string, segments: string[]): string {
  return segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment)
        ? `${path}[${segment}]`
        : /^[A-Za-z_$][\w$]*$/.test(segment)
          ? `${path}.${segment}`
          : `${path}[${JSON.stringify(segment)}]`,
    root,
  );
}

function valueAt(value: unknown, segments: string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value === undefined) return 'nothing';
  return typeof value;
}
