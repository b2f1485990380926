import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { validate as validateMetaSchema } from '../generated/meta-schema-validator.js';
import { CONFIG_AJV_OPTIONS } from './config-ajv-options.js';
import { canonicalJson } from '../canonical-json.js';
import type { FieldDefinition, Model } from '../service/types.js';

/** Config keys that describe the model rather than a parameter (spec 2.4). */
const SPECIAL_KEYS = new Set(['_badges', 'maxRefImages']);

/** Body fields the runner fills itself; a config entry with these names is not a job param. */
const RESERVED_KEYS = new Set(['model', 'prompt', 'idempotencyKey']);

/** One parameter of a model, from its config field definition. */
export interface CompiledParam {
  name: string;
  definition: FieldDefinition;
  /** Required when the field has neither `optional: true` nor a `default`. */
  required: boolean;
  /**
   * Set for `upload` fields, whose values may be URLs or local paths: `list` when the field takes an
   * array of images (see {@link isListUploadField}), `single` otherwise.
   */
  upload?: 'single' | 'list';
}

/** A model's config turned into a compiled JSON Schema plus the facts validation and costing need. */
export interface CompiledModelConfig {
  slug: string;
  /** False when the model has no `config`: its params cannot be checked. */
  hasConfig: boolean;
  /** Parameter name → parameter, in config order. */
  params: ReadonlyMap<string, CompiledParam>;
  /** The JSON Schema the config maps to (`additionalProperties: false`). */
  schema: Readonly<Record<string, unknown>>;
  /** The validator of {@link schema}, compiled by ajv once per distinct config in a process. */
  validate: ValidateFunction;
  /** Fields with a `default`, applied to params the job leaves out. */
  defaults: readonly (readonly [string, unknown])[];
  /** Spec 2.4 `maxRefImages`, when the config has a numeric one. */
  maxRefImages?: number;
  /** The list-upload parameter that `maxRefImages` bounds, when there is one. */
  refImagesParam?: string;
  /** Parameters with `creditCostMultiplier: true`. */
  multipliers: readonly CompiledParam[];
  /** The config's own `prompt` field, if it lists one: it is filled from the job's `prompt`. */
  promptField?: CompiledParam;
}

const requireFromRunner = createRequire(import.meta.url);

/**
 * The runtime Ajv of the runner, created on the first model config compiled: model configs come from
 * the catalog, so they are compiled when read; the runner's own schemas are compiled at build time
 * (src/generated/). ajv is loaded with `require` rather than imported, so a command that checks no
 * params (`--help`, `status`, `runs`) never loads ajv's compiler. Its own check of each schema against
 * the draft-07 meta-schema is off: {@link compileSchema} runs the same check with the meta-schema's
 * validator compiled at build time, instead of compiling the meta-schema (the larger part of a first
 * compile) in every process.
 *
 * Validators are not kept between runs: ajv's standalone code kept in the cache folder saved ~18 ms of
 * `runner validate` (2 configs), under the 20 ms a start-up layer must buy (bench/README.md, #21.4).
 */
let compiler: Ajv | undefined;
function getCompiler(): Ajv {
  compiler ??= new (requireCompiler())({ ...CONFIG_AJV_OPTIONS, validateSchema: false });
  return compiler;
}

/**
 * ajv's class: from the one-file build beside the bundle (scripts/bundle.js) when there is one, which
 * reads one file where ajv's package is ~70 (~40 ms), else from node_modules (the tests, the unbundled
 * dist/).
 */
function requireCompiler(): typeof Ajv {
  try {
    return (requireFromRunner('./ajv-compiler.cjs') as { Ajv: typeof Ajv }).Ajv;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
  }
  return (requireFromRunner('ajv') as { Ajv: typeof Ajv }).Ajv;
}

/** ajv's compile after the meta-schema check, which fails with the error ajv itself would throw. */
function compileSchema(schema: Record<string, unknown>): ValidateFunction {
  const checkMeta = validateMetaSchema as ValidateFunction;
  const ajv = getCompiler();
  if (!checkMeta(schema)) throw new Error(`schema is invalid: ${ajv.errorsText(checkMeta.errors)}`);
  const validate = ajv.compile(schema);
  // ajv would keep every schema it compiled; configs that change must not pile up. The function
  // returned keeps working without it.
  ajv.removeSchema(schema);
  return validate;
}

const cache = new Map<string, { config: unknown; configJson: string; compiled: CompiledModelConfig }>();

/**
 * Compiles a model's `config` (spec 2.4) to a JSON Schema validator, once per model: the result is
 * cached by slug and reused while the config is equal. Mapping:
 * - `select`, `card-select` → `enum` of the option values (any string/number/boolean when no options);
 * - `number` → `type: number` with `minimum`/`maximum` from `min`/`max`;
 * - `text` → string; `toggle` → boolean;
 * - `upload` → a non-empty string (URL or local path), or an array of them for list fields
 *   ({@link isListUploadField});
 * - an unknown field type (a newer service) → any value, so it is not refused by mistake.
 *
 * Required params are fields without `optional: true` and without `default`. Additional properties
 * are not allowed. `_badges`, `maxRefImages` and non-object entries are not params; nor are `model`,
 * `prompt` and `idempotencyKey`, which the runner fills from the job itself.
 */
export function compileModelConfig(model: Model): CompiledModelConfig {
  const config = model.config ?? undefined;
  const hit = cache.get(model.slug);
  if (hit !== undefined && hit.config === config) return hit.compiled;
  const configJson = canonicalJson(config ?? null);
  if (hit !== undefined && hit.configJson === configJson) {
    hit.config = config;
    return hit.compiled;
  }
  const compiled = buildCompiledConfig(model.slug, config);
  cache.set(model.slug, { config, configJson, compiled });
  return compiled;
}

/**
 * Whether an `upload` field takes an array of images rather than one: its name is plural
 * (`…images`, `…urls`, `…files`, e.g. `referenceImages`), or the model allows several reference
 * images (`maxRefImages` > 1) and the name mentions `ref` (e.g. `refImage`).
 */
export function isListUploadField(name: string, maxRefImages: number | undefined): boolean {
  if (/(images|urls|files)$/i.test(name)) return true;
  return maxRefImages !== undefined && maxRefImages > 1 && /ref/i.test(name);
}

/** The multiplier a `creditCostMultiplier` value stands for; `undefined` when it is not numeric. */
export function readMultiplier(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  // Select options often carry numbers as strings ("2"); a suffix like "2x" is read as 2.
  if (typeof value === 'string') {
    const parsed = Number.parseFloat(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

function buildCompiledConfig(slug: string, config: Model['config'] | undefined): CompiledModelConfig {
  const maxRefImages =
    typeof config?.maxRefImages === 'number' && Number.isFinite(config.maxRefImages)
      ? config.maxRefImages
      : undefined;
  const params = new Map<string, CompiledParam>();
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const defaults: (readonly [string, unknown])[] = [];
  let promptField: CompiledParam | undefined;
  for (const [name, raw] of Object.entries(config ?? {})) {
    if (SPECIAL_KEYS.has(name) || !isFieldDefinition(raw)) continue;
    const param: CompiledParam = {
      name,
      definition: raw,
      required: raw.optional !== true && raw.default === undefined,
    };
    if (name === 'prompt') promptField = param;
    if (RESERVED_KEYS.has(name)) continue;
    if (raw.type === 'upload') param.upload = isListUploadField(name, maxRefImages) ? 'list' : 'single';
    params.set(name, param);
    properties[name] = fieldSchema(param);
    if (param.required) required.push(name);
    if (raw.default !== undefined) defaults.push([name, raw.default]);
  }
  const schema = { type: 'object', properties, required, additionalProperties: false };
  const compiled: CompiledModelConfig = {
    slug,
    hasConfig: config !== undefined,
    params,
    schema,
    validate: compileSchema(schema),
    defaults,
    multipliers: [...params.values()].filter((param) => param.definition.creditCostMultiplier === true),
  };
  if (maxRefImages !== undefined) compiled.maxRefImages = maxRefImages;
  const refImagesParam = pickRefImagesParam(params);
  if (refImagesParam !== undefined) compiled.refImagesParam = refImagesParam;
  if (promptField !== undefined) compiled.promptField = promptField;
  return compiled;
}

function isFieldDefinition(value: unknown): value is FieldDefinition {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}

function fieldSchema(param: CompiledParam): Record<string, unknown> {
  const field = param.definition;
  switch (field.type) {
    case 'select':
    case 'card-select': {
      const values = (field.options ?? []).map((option) => option.value);
      return values.length > 0 ? { enum: values } : { type: ['string', 'number', 'boolean'] };
    }
    case 'number': {
      const schema: Record<string, unknown> = { type: 'number' };
      if (typeof field.min === 'number') schema.minimum = field.min;
      if (typeof field.max === 'number') schema.maximum = field.max;
      return schema;
    }
    case 'text':
      return { type: 'string' };
    case 'toggle':
      return { type: 'boolean' };
    case 'upload':
      return param.upload === 'list'
        ? { type: 'array', items: { type: 'string', minLength: 1 } }
        : { type: 'string', minLength: 1 };
    default:
      return {};
  }
}

function pickRefImagesParam(params: ReadonlyMap<string, CompiledParam>): string | undefined {
  const lists = [...params.values()].filter((param) => param.upload === 'list');
  return (lists.find((param) => /ref/i.test(param.name)) ?? lists[0])?.name;
}
