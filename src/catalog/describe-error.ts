import type { ErrorObject } from 'ajv';

/** An ajv error of a params object, in the runner's words. */
export interface ParamProblem {
  code: 'invalid-param' | 'missing-param' | 'unknown-param';
  /** The top-level param the problem is about. */
  param: string;
  /** Segments below the param (array indexes), for pointing at an item. */
  rest: (string | number)[];
  /** `param "x[2]"` etc.: what is wrong, expected and received. */
  message: string;
}

/**
 * Describes one ajv error (from a validator compiled with `verbose: true`) of a params object:
 * which param, what was expected and what was received.
 */
export function describeParamError(error: ErrorObject): ParamProblem {
  const segments = splitInstancePath(error.instancePath);
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  if (error.keyword === 'required') {
    const param = String((error.params as { missingProperty: string }).missingProperty);
    const propertySchema = (schema.properties as Record<string, Record<string, unknown>> | undefined)?.[
      param
    ];
    return {
      code: 'missing-param',
      param,
      rest: [],
      message: `missing required param ${JSON.stringify(param)}; expected ${describeExpected(propertySchema ?? {})}`,
    };
  }
  if (error.keyword === 'additionalProperties') {
    const param = String((error.params as { additionalProperty: string }).additionalProperty);
    return { code: 'unknown-param', param, rest: [], message: `unknown param ${JSON.stringify(param)}` };
  }
  const [first, ...rest] = segments;
  const param = String(first ?? '');
  const name = `param ${JSON.stringify(formatParamPath(param, rest))}`;
  const received = describeReceived(error.data);
  if (error.keyword === 'maxItems') {
    const limit = (error.params as { limit: number }).limit;
    const count = Array.isArray(error.data) ? error.data.length : 0;
    return {
      code: 'invalid-param',
      param,
      rest,
      message: `${name} takes at most ${limit} items; received ${count}`,
    };
  }
  return {
    code: 'invalid-param',
    param,
    rest,
    message: `${name} must be ${describeExpected(schema)}; received ${received}`,
  };
}

/** A schema node as a phrase: `one of "png", "jpeg"`, `a number from 1 to 4`, `an integer`… */
export function describeExpected(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`;
  const type = schema.type;
  if (type === 'number' || type === 'integer') {
    const noun = type === 'integer' ? 'an integer' : 'a number';
    const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
    const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
    if (min !== undefined && max !== undefined) return `${noun} from ${min} to ${max}`;
    if (min !== undefined) return `${noun} >= ${min}`;
    if (max !== undefined) return `${noun} <= ${max}`;
    return noun;
  }
  if (type === 'string') return schema.minLength === 1 ? 'a non-empty string' : 'a string';
  if (type === 'boolean') return 'true or false';
  if (type === 'array') {
    const items = (schema.items ?? {}) as Record<string, unknown>;
    return `a list of ${describeExpected(items).replace(/^an? /, '')}s`;
  }
  if (Array.isArray(type)) return type.join(' or ');
  return 'a value';
}

/** A received value for a message: JSON, shortened, with its type when that is the point. */
export function describeReceived(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  const shown = json.length > 60 ? `${json.slice(0, 57)}...` : json;
  const type = value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value;
  return `${shown} (${type})`;
}

function formatParamPath(param: string, rest: (string | number)[]): string {
  return (
    param + rest.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${segment}`)).join('')
  );
}

function splitInstancePath(path: string): (string | number)[] {
  if (path === '') return [];
  return path
    .slice(1)
    .split('/')
    .map((segment) => {
      const text = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^\d+$/.test(text) ? Number(text) : text;
    });
}
