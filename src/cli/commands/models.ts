import { UsageError } from '../../errors.js';
import { MODEL_CATEGORIES, type ModelCategory } from '../../service/types.js';
import { parseStringOption } from '../parse/values.js';
import { defineCommand, flag, SERVICE_FLAGS } from './command.js';

/** `runner models [--category C] [--json]`: asks the service once and renders the catalog. */
export const modelsCommand = defineCommand({
  name: 'models',
  args: '',
  description: "List the model catalog: each model's input form, bounds, defaults and cost",
  flags: [
    flag('--category <category>', 'Only models of this category (image, video, voiceovervideo, ...)'),
    flag('--json', 'Print the catalog as JSON (usable as `--catalog` for validate/plan)'),
  ],
  globals: SERVICE_FLAGS,
  examples: ['runner models --category image', 'runner models --json > catalog.json'],
  parse: ({ flags }) => ({ category: parseCategory(flags.category), json: flags.json === true }),
  async run(ctx, { category, json }) {
    const { withConnection } = await import('../effects/connect.js');
    const { renderModels } = await import('../render/models.js');
    const models = await withConnection(ctx, ({ client }) =>
      client.listModels(category === undefined ? {} : { category }),
    );
    ctx.output.out(json ? JSON.stringify(models, null, 2) : renderModels(models, ctx.output.style));
    return 'done';
  },
});

function parseCategory(value: unknown): ModelCategory | undefined {
  const category = parseStringOption(value);
  if (category === undefined) return undefined;
  if (!(MODEL_CATEGORIES as readonly string[]).includes(category)) {
    throw new UsageError(`Unknown category "${category}".`, {
      hint: `Categories: ${MODEL_CATEGORIES.join(', ')}.`,
    });
  }
  return category as ModelCategory;
}
