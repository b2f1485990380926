/**
 * Response shapes from `schemas/api/*.schema.json`, compiled at build time (`npm run schemas`, see
 * scripts/compile-schemas.js) into src/generated/api-validators.ts. A mismatch is
 * described by field path and JSON type only: values never appear, so a secret in a response cannot
 * leak through an error message.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import * as generated from '../generated/api-validators.js';

export type ApiSchemaName =
  'envelope' | 'model-list' | 'balance' | 'subscription' | 'job-creation' | 'job-record' | 'presign';

export type SchemaCheck<T> = { ok: true; value: T } | { ok: false; problem: string };

const validators: Record<ApiSchemaName, unknown> = {
  envelope: generated.envelope,
  'model-list': generated.modelList,
  balance: generated.balance,
  subscription: generated.subscription,
  'job-creation': generated.jobCreation,
  'job-record': generated.jobRecord,
  presign: generated.presign,
};

/** The schemas themselves, read on first use: lenient answers are coerced by walking them. */
const schemas = new Map<ApiSchemaName, unknown>();

/**
 * `src/service/` under vitest and `dist/service/` after tsc are both two levels below the package
 * root, where `schemas/` lives (and ships, see package.json `files`).
 */
function loadSchema(name: ApiSchemaName): unknown {
  const url = new URL(`../../schemas/api/${name}.schema.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')) as unknown;
}

function getSchema(name: ApiSchemaName): unknown {
  let schema = schemas.get(name);
  if (schema === undefined) {
    schema = loadSchema(name);
    schemas.set(name, schema);
  }
  return schema;
}

/**
 * The answers api-notes says may carry numbers as strings. The model list is not among them: its
 * numbers define what a manifest may send, and a misread bound must be reported, not guessed.
 */
const LENIENT_NUMBERS = new Set<ApiSchemaName>(['balance', 'subscription', 'job-creation', 'job-record']);

const NUMERIC_TEXT = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/**
 * Real clients meet numbers sent as strings (api-notes): where the schema expects a number and the
 * answer holds a string that reads as one, the string becomes the number (in place; `value` is a
 * freshly parsed answer). Anything else is left for the schema to report. Unlike ajv's
 * `coerceTypes`, `null` and booleans are never turned into numbers.
 */
export function coerceNumericStrings(value: unknown, schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object') return value;
  const node = schema as { type?: unknown; properties?: Record<string, unknown>; items?: unknown };
  const types = Array.isArray(node.type) ? (node.type as unknown[]) : [node.type];
  if (typeof value === 'string' && (types.includes('number') || types.includes('integer'))) {
    return NUMERIC_TEXT.test(value) ? Number(value) : value;
  }
  if (Array.isArray(value)) {
    if (node.items !== undefined) {
      for (let index = 0; index < value.length; index++)
        value[index] = coerceNumericStrings(value[index], node.items);
    }
    return value;
  }
  if (value !== null && typeof value === 'object' && node.properties !== undefined) {
    const record = value as Record<string, unknown>;
    for (const [key, propertySchema] of Object.entries(node.properties)) {
      if (key in record) record[key] = coerceNumericStrings(record[key], propertySchema);
    }
  }
  return value;
}

/**
 * Checks `value` against a schema. `root` names the value in the problem text, e.g. `data` gives
 * `data[0].creditCost: expected number, received string`.
 */
export function checkSchema<T>(name: ApiSchemaName, value: unknown, root: string): SchemaCheck<T> {
  const validate = validators[name] as ValidateFunction;
  const coerced = LENIENT_NUMBERS.has(name) ? coerceNumericStrings(value, getSchema(name)) : value;
  if (validate(coerced)) return { ok: true, value: coerced as T };
  const error = validate.errors?.[0];
  return {
    ok: false,
    problem: error === undefined ? `${root}: invalid` : describeSchemaError(error, coerced, root),
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
