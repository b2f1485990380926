import { UsageError } from '../../errors.js';
import { MODEL_CATEGORIES, type ModelCategory } from '../../service/types.js';
import { withConnection } from '../connect.js';
import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { parseStringOption } from '../parse/values.js';
import { renderModels } from '../render/models.js';

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

export async function runModels(
  ctx: CommandContext,
  _args: string[],
  options: Record<string, unknown>,
): Promise<Outcome> {
  const category = parseCategory(options.category);
  const models = await withConnection(ctx, ({ client }) =>
    client.listModels(category === undefined ? {} : { category }),
  );
  ctx.output.out(
    options.json === true ? JSON.stringify(models, null, 2) : renderModels(models, ctx.output.style),
  );
  return 'done';
}
