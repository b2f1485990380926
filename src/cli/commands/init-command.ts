import type { CommandContext } from '../../app/context.js';
import { runInit } from '../../app/init.js';
import { withConnection } from '../connect.js';

/** `runner init FILE --model SLUG`: the use case is src/app/init.ts; the service gives the catalog. */
export async function runInitCommand(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  const [file = ''] = args;
  return runInit(ctx, file, options, () => withConnection(ctx, ({ client }) => client.listModels()));
}
