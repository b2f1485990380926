import { defineCommand, flag, SERVICE_FLAGS } from './command.js';

/** `runner balance [--json]`: asks the service once; the API key in its answer is never shown. */
export const balanceCommand = defineCommand({
  name: 'balance',
  args: '',
  description: 'Show the account balance (the API key in the response is never shown)',
  flags: [flag('--json', 'Print JSON')],
  globals: SERVICE_FLAGS,
  parse: ({ flags }) => ({ json: flags.json === true }),
  async run(ctx, { json }) {
    const { withConnection } = await import('../effects/connect.js');
    const { renderBalance } = await import('../render/balance.js');
    const balance = await withConnection(ctx, ({ client }) => client.getBalance());
    ctx.output.out(
      json
        ? JSON.stringify({ schemaVersion: 1, ...balance }, null, 2)
        : renderBalance(balance, ctx.output.style),
    );
    return 'done';
  },
});
