import type { Model } from '../service/types.js';
import { compileModelConfig } from './config-schema.js';
import { describeCredits } from '../service/credit-cost.js';

/**
 * The pipeline JSON Schema with `params` typed per model from the catalog (`runner schema`): a job
 * naming `model: X`, and a job without a model under `defaults: { model: X }`, gets X's form as the
 * schema of its params (enums for selects, bounds for numbers, no unknown keys), and so do
 * `defaults.params`, so editors complete and check each model's params. A model written as a template
 * (`model: "{{ model }}"`) matches no form and stays untyped. Pure; `base` is not modified.
 */
export function buildManifestSchema(
  base: Record<string, unknown>,
  catalog: readonly Model[],
): Record<string, unknown> {
  const schema = structuredClone(base);
  const definitions = (schema.definitions ?? {}) as Record<string, Record<string, unknown>>;
  const job = definitions.job;
  if (job === undefined) throw new Error('the pipeline schema has no definitions.job');
  const jobRules: Record<string, unknown>[] = [];
  const defaultRules: Record<string, unknown>[] = [];
  for (const model of catalog) {
    if (model.config === undefined || model.config === null) continue;
    const params = paramsSchemaOf(model);
    const namesModel = (required: boolean) => ({
      properties: { model: { const: model.slug } },
      required: required ? ['model'] : [],
    });
    jobRules.push({ if: namesModel(true), then: { properties: { params } } });
    // Most manifests name the model once, under `defaults`: type the params of every job that names
    // none, and `defaults.params` too. (A schema cannot read the root from inside a job, so the rule
    // stands at the root and reaches down into `jobs`.)
    defaultRules.push({
      if: { properties: { defaults: namesModel(true) }, required: ['defaults'] },
      then: {
        properties: {
          defaults: { properties: { params } },
          jobs: { items: { if: { not: { required: ['model'] } }, then: { properties: { params } } } },
        },
      },
    });
  }
  definitions.job = { ...job, allOf: jobRules };
  if (defaultRules.length > 0)
    schema.allOf = [...((schema.allOf as unknown[] | undefined) ?? []), ...defaultRules];
  const description = typeof schema.description === 'string' ? `${schema.description} ` : '';
  schema.description = `${description}Params typed per model from the catalog (runner schema).`;
  return schema;
}

/** The JSON Schema of one model's params, from its catalog form. */
function paramsSchemaOf(model: Model): Record<string, unknown> {
  const compiled = compileModelConfig(model);
  const base = compiled.schema.properties as Record<string, Record<string, unknown>>;
  const properties: Record<string, unknown> = {};
  for (const [name, param] of compiled.params) {
    const field = param.definition;
    const notes = [
      field.label,
      field.default === undefined ? '' : `default ${JSON.stringify(field.default)}`,
    ];
    properties[name] = { description: notes.filter((note) => note !== '').join('; '), ...base[name] };
  }
  return {
    description: `Params of ${model.displayName} (${model.slug}), ${describeCredits(model.creditCost)} credits per job.`,
    type: 'object',
    properties,
    // No `required`: a job's required params may come from `defaults.params`.
    additionalProperties: false,
  };
}
