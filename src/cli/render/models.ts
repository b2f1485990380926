import { isRunnableModel } from '../../kinds/index.js';
import { describeCredits } from '../../service/credit-cost.js';
import type { FieldDefinition, Model } from '../../service/types.js';
import type { Style } from '../../text-style.js';

/** Splits a model's config (spec 2.4) into its fields and the special keys. */
export function configFields(model: Model): [string, FieldDefinition][] {
  const config = model.config ?? {};
  return Object.entries(config).filter(
    (entry): entry is [string, FieldDefinition] =>
      entry[0] !== '_badges' &&
      entry[0] !== 'maxRefImages' &&
      typeof entry[1] === 'object' &&
      entry[1] !== null,
  );
}

function describeField(name: string, field: FieldDefinition): string {
  const parts: string[] = [field.type];
  if (field.options !== undefined && field.options.length > 0) {
    parts.push(`one of ${field.options.map((option) => JSON.stringify(option.value)).join(', ')}`);
  }
  if (field.min !== undefined || field.max !== undefined) {
    parts.push(`${field.min ?? '-∞'}..${field.max ?? '∞'}`);
  }
  if (field.default !== undefined) parts.push(`default ${JSON.stringify(field.default)}`);
  const flags: string[] = [];
  if (field.optional === true) flags.push('optional');
  if (field.advanced === true) flags.push('advanced');
  if (field.creditCostMultiplier === true) flags.push('multiplies cost');
  const flagText = flags.length > 0 ? ` (${flags.join(', ')})` : '';
  return `${name}: ${parts.join(', ')}${flagText} — ${field.label}`;
}

/**
 * A readable listing of each model's input form: fields, types, options, bounds, defaults, cost. A
 * model of a category no job kind runs (the catalog lists inpainting, scraping, …) is marked, so
 * nobody writes a manifest for it.
 */
export function renderModels(models: Model[], style: Style): string {
  if (models.length === 0) return 'No models.';
  const blocks = models.map((model) => {
    const header = `${style.bold(model.slug)}  ${style.dim(model.category)}  ${describeCredits(model.creditCost)} credits  ${model.displayName}`;
    const lines = [header];
    if (!isRunnableModel(model))
      lines.push(
        `  ${style.yellow(`runner cannot run "${model.category}" models: no job kind has their endpoint`)}`,
      );
    if (model.description) lines.push(`  ${style.dim(model.description)}`);
    const maxRefImages = model.config?.maxRefImages;
    if (typeof maxRefImages === 'number') lines.push(`  max reference images: ${maxRefImages}`);
    const badges = model.config?._badges;
    if (Array.isArray(badges) && badges.length > 0) lines.push(`  badges: ${badges.map(String).join(', ')}`);
    const fields = configFields(model);
    if (fields.length === 0) lines.push(`  ${style.dim('no parameters')}`);
    for (const [name, field] of fields) lines.push(`  ${describeField(name, field)}`);
    return lines.join('\n');
  });
  return blocks.join('\n\n');
}
