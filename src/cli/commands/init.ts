import { defineCommand, flag, SERVICE_FLAGS } from './command.js';

/** `runner init FILE --model SLUG`: the use case is src/app/init.ts; the service gives the catalog. */
export const initCommand = defineCommand({
  name: 'init',
  args: '<file>',
  description: "Write a commented manifest for one model, from the catalog's form of it",
  flags: [
    flag('--model <slug>', 'The model (see `runner models`)'),
    flag('--catalog <file>', 'Use a saved catalog (from `runner models --json`) instead of the service'),
    flag('--force', 'Overwrite the file if it exists'),
  ],
  globals: SERVICE_FLAGS,
  examples: ['runner init pipelines/new.yaml --model chatgpt-image-sangtao --catalog catalog.json'],
  async parse({ args, flags }) {
    const { parseInitOptions } = await import('../parse/init.js');
    return { file: args[0] ?? '', options: parseInitOptions(flags) };
  },
  async run(ctx, { file, options }) {
    const { runInit } = await import('../../app/init.js');
    const { withConnection } = await import('../effects/connect.js');
    return runInit(ctx, file, options, () => withConnection(ctx, ({ client }) => client.listModels()));
  },
});
