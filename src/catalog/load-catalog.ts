import { readFile } from 'node:fs/promises';
import type { ValidateFunction } from 'ajv';
import { validate as validateCatalogModel } from '../generated/catalog-model-validator.js';
import { RunnerError } from '../errors.js';
import type { Model } from '../service/types.js';

const HINT =
  'write the file with "runner models --json > catalog.json", or omit --catalog to fetch the catalog';

/**
 * Parses a saved catalog (what `runner models --json` writes): a bare array of models, an object
 * `{ models: [...] }`, or the service's own response envelope `{ success, data: [...] }` (spec 2.1). Unknown categories are kept (a newer service may add some); the job
 * kind check reports them. Throws `INVALID_INPUT` naming the file and the first bad entry.
 */
export function parseCatalog(text: string, source: string): Model[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new RunnerError('INVALID_INPUT', `catalog file ${source} is not valid JSON: ${reason}`, {
      cause: error,
      hint: HINT,
    });
  }
  const wrapper = data as { models?: unknown; data?: unknown; success?: unknown; error?: unknown } | null;
  if (wrapper?.success === false) {
    throw new RunnerError(
      'INVALID_INPUT',
      `catalog file ${source} holds an error response of the service, not a catalog: ${typeof wrapper.error === 'string' ? wrapper.error : 'no message'}`,
      { hint: HINT },
    );
  }
  // Spec 2.1: the service wraps the list as { success, data: [...] }; a response saved as-is works too.
  const models = Array.isArray(data) ? data : Array.isArray(wrapper?.data) ? wrapper.data : wrapper?.models;
  if (!Array.isArray(models)) {
    throw new RunnerError(
      'INVALID_INPUT',
      `catalog file ${source} has the wrong shape: expected an array of models or an object with a "models" or "data" array; received ${describeShape(data)}`,
      { hint: HINT },
    );
  }
  // Compiled from CATALOG_MODEL_SCHEMA (./catalog-model-schema.ts) at build time: npm run schemas.
  const validate = validateCatalogModel as ValidateFunction;
  const seen = new Set<string>();
  models.forEach((model: unknown, index) => {
    if (!validate(model)) {
      const error = validate.errors?.[0];
      const where = `${error?.instancePath ?? ''}`.replace(/^\//, '.').replace(/\//g, '.');
      throw new RunnerError(
        'INVALID_INPUT',
        `catalog file ${source}: model [${index}]${where} ${error?.message ?? 'is invalid'}; expected slug, displayName and category (strings)`,
        { hint: HINT },
      );
    }
    const slug = (model as Model).slug;
    if (seen.has(slug)) {
      throw new RunnerError(
        'INVALID_INPUT',
        `catalog file ${source}: model slug ${JSON.stringify(slug)} appears more than once`,
        {
          hint: HINT,
        },
      );
    }
    seen.add(slug);
  });
  return models as Model[];
}

/** Reads and parses a saved catalog file (`--catalog file.json`). */
export async function loadCatalog(
  file: string,
  read: (path: string) => Promise<string> = (path) => readFile(path, 'utf8'),
): Promise<Model[]> {
  let text: string;
  try {
    text = await read(file);
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new RunnerError('INVALID_INPUT', `cannot read catalog file ${file}: ${reason}`, {
      cause: error,
      hint: HINT,
    });
  }
  return parseCatalog(text, file);
}

function describeShape(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const keys = Object.keys(value).slice(0, 5);
  return `an object with keys ${keys.length > 0 ? keys.map((k) => JSON.stringify(k)).join(', ') : '(none)'}`;
}
