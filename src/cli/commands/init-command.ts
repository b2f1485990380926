import type { CommandContext } from '../../app/context.js';
import { runInit } from '../../app/init.js';
import type { Outcome } from '../../app/outcome.js';
import { withConnection } from '../connect.js';
import type { Flags } from '../parse/common.js';
import { parseInitOptions } from '../parse/init.js';

/** `runner init FILE --model SLUG`: the use case is src/app/init.ts; the service gives the catalog. */
export async function runInitCommand(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  const [file = ''] = args;
  return runInit(ctx, file, parseInitOptions(flags), () =>
    withConnection(ctx, ({ client }) => client.listModels()),
  );
}
