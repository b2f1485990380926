import { withConnection } from '../connect.js';
import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { renderBalance } from '../render/balance.js';

export async function runBalance(
  ctx: CommandContext,
  _args: string[],
  options: Record<string, unknown>,
): Promise<Outcome> {
  const balance = await withConnection(ctx, ({ client }) => client.getBalance());
  ctx.output.out(
    options.json === true
      ? JSON.stringify({ schemaVersion: 1, ...balance }, null, 2)
      : renderBalance(balance, ctx.output.style),
  );
  return 'done';
}
