import { defineCommand, flag } from './command.js';
import { RUN_FLAG, STATE_FLAGS, TARGETING_FLAGS, VAR_FLAGS } from './shared-flags.js';

/** `runner status FILE`: the use case is src/app/status.ts; the terminal renders what it finds. */
export const statusCommand = defineCommand({
  name: 'status',
  args: '<manifest>',
  description: 'Show every job of a run from its state: status, attempts, cost, files',
  flags: [RUN_FLAG, ...STATE_FLAGS, flag('--json', 'Print JSON'), ...TARGETING_FLAGS, ...VAR_FLAGS],
  globals: [],
  manifestArg: 0,
  async parse({ args, flags }) {
    const { parseStatusOptions } = await import('../parse/status.js');
    return { manifestFile: args[0] ?? '', options: parseStatusOptions(flags) };
  },
  async run(ctx, { manifestFile, options }) {
    const { runStatus } = await import('../../app/status.js');
    const { renderIssues } = await import('../render/issues.js');
    const { renderStatus } = await import('../render/status.js');
    return runStatus(ctx, manifestFile, options, { renderIssues, renderStatus });
  },
});
