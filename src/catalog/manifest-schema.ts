import type { Model } from '../service/types.js';
import { compileModelConfig } from './config-schema.js';

/**
 * The pipeline JSON Schema with each job's `params` typed per model from the catalog (`runner schema`):
 * a job naming `model: X` gets X's form as the schema of its params (enums for selects, bounds for
 * numbers, no unknown keys), so editors complete and check each model's params. Params of a job that
 * takes its model from `defaults` stay untyped. Pure; `base` is not modified.
 */
export function buildManifestSchema(
  base: Record<string, unknown>,
  catalog: readonly Model[],
): Record<string, unknown> {
  const schema = structuredClone(base);
  const definitions = (schema.definitions ?? {}) as Record<string, Record<string, unknown>>;
  const job = definitions.job;
  if (job === undefined) throw new Error('the pipeline schema has no definitions.job');
  const rules: Record<string, unknown>[] = [];
  for (const model of catalog) {
    if (model.config === undefined || model.config === null) continue;
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
    rules.push({
      if: { properties: { model: { const: model.slug } }, required: ['model'] },
      then: {
        properties: {
          // No `required`: a job's required params may come from `defaults.params`.
          params: {
            description: `Params of ${model.displayName} (${model.slug}), ${model.creditCost} credits per job.`,
            type: 'object',
            properties,
            additionalProperties: false,
          },
        },
      },
    });
  }
  definitions.job = { ...job, allOf: rules };
  const description = typeof schema.description === 'string' ? `${schema.description} ` : '';
  schema.description = `${description}Params typed per model from the catalog (runner schema).`;
  return schema;
}
