import { kindForModel } from '../kinds/index.js';
import type { FieldDefinition, Model } from '../service/types.js';
import { compileModelConfig, type CompiledParam } from './config-schema.js';
import { describeCredits } from '../service/credit-cost.js';

/**
 * A commented manifest for one model (`runner init`): every field of the model's form as a param,
 * with its label, type, options, bounds and default in a comment. Required fields get a value (the
 * default, else the first option or the minimum); the others are commented out, ready to enable. The
 * result validates as it is, except that a required text or upload field needs a real value. Pure.
 */
export function scaffoldManifest(input: { model: Model; name: string; schemaPath?: string }): string {
  const { model } = input;
  const kind = kindForModel(model) ?? 'image'; // callers refuse models without a kind first
  const compiled = compileModelConfig(model);
  const lines: string[] = [];
  if (input.schemaPath !== undefined) lines.push(`# yaml-language-server: $schema=${input.schemaPath}`);
  lines.push(
    `# A manifest for ${model.displayName} (${model.slug}), ${describeCredits(model.creditCost)} credits per job, made by \`runner init\`.`,
    '# Check it with `runner validate FILE`, see the cost with `runner plan FILE`, run it with `runner apply FILE`.',
    'version: 1',
    `name: ${input.name}`,
    '# budget: 100 # optional: plan and apply refuse to spend more credits than this',
    'vars:',
    '  subject: a cup of coffee',
    'jobs:',
    `  - id: 'first-{{ index }}'`,
    `    kind: ${kind}`,
    `    model: ${model.slug}`,
    '    prompt: A clear, detailed description of {{ subject }}',
  );
  if (compiled.params.size === 0) {
    lines.push(
      compiled.hasConfig
        ? '    # this model takes no params'
        : '    # the catalog lists no form for this model',
    );
    return `${lines.join('\n')}\n`;
  }
  const params = [...compiled.params.values()].filter((param) => compiled.promptField?.name !== param.name);
  // An empty `params:` is null, which the schema refuses: with no required field, one with a default
  // is written out (it changes nothing: the default applies anyway).
  const shown =
    params.find((param) => param.required) ?? params.find((p) => p.definition.default !== undefined);
  lines.push(
    shown === undefined ? '    params: {} # every field is optional: drop the {} to set one' : '    params:',
  );
  for (const param of params) {
    lines.push(`      # ${describeField(param, compiled.maxRefImages)}`);
    const value = yamlValue(sampleValue(param));
    const enabled = param.required || param === shown;
    lines.push(enabled ? `      ${param.name}: ${value}` : `      # ${param.name}: ${value}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `Label: type; options a, b; min 1, max 4; default x; required`, for a comment. */
function describeField(param: CompiledParam, maxRefImages: number | undefined): string {
  const field = param.definition;
  const parts = [`${oneLine(field.label)}: ${field.type}`];
  if (param.upload === 'list') {
    parts.push(
      `a list of image URLs or local paths${maxRefImages === undefined ? '' : `, at most ${maxRefImages}`}`,
    );
  } else if (param.upload === 'single') parts.push('an image URL or a local path');
  if (field.options !== undefined && field.options.length > 0) {
    parts.push(`options: ${field.options.map((option) => yamlValue(option.value)).join(', ')}`);
  }
  const bounds = [
    field.min === undefined ? '' : `min ${field.min}`,
    field.max === undefined ? '' : `max ${field.max}`,
  ].filter((bound) => bound !== '');
  if (bounds.length > 0) parts.push(bounds.join(', '));
  if (field.default !== undefined) parts.push(`default ${yamlValue(field.default)}`);
  if (field.creditCostMultiplier === true) parts.push('multiplies the cost');
  if (field.advanced === true) parts.push('advanced');
  parts.push(param.required ? 'required' : 'optional');
  return parts.join('; ');
}

function sampleValue(param: CompiledParam): unknown {
  const field: FieldDefinition = param.definition;
  if (field.default !== undefined) return field.default;
  if (field.options !== undefined && field.options.length > 0) return field.options[0]?.value;
  switch (field.type) {
    case 'number':
      return field.min ?? 1;
    case 'toggle':
      return false;
    case 'upload':
      return param.upload === 'list'
        ? ['https://example.com/reference.png']
        : 'https://example.com/reference.png';
    default:
      return `write the ${oneLine(field.label).toLowerCase()} here`;
  }
}

/** A value as inline YAML (JSON is valid YAML; strings always quoted so `16:9` stays a string). */
function yamlValue(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
