import { defineCommand, flag } from './command.js';
import { TARGETING_FLAGS, VAR_FLAGS } from './shared-flags.js';

/** `runner render FILE`: the use case is src/app/render.ts; the terminal renders the problems. */
export const renderCommand = defineCommand({
  name: 'render',
  args: '<manifest>',
  description: "Print each job's rendered prompt and params (offline; templates, vars, matrix)",
  flags: [flag('--json', 'Print JSON'), ...TARGETING_FLAGS, ...VAR_FLAGS],
  // It reads no service, but the API key's value, to keep it out of what it renders.
  globals: ['api-key-file'],
  examples: ['runner render pipelines/demo.yaml --only "cup-*"'],
  async parse({ args, flags }) {
    const { parseRenderOptions } = await import('../parse/render.js');
    return { manifestFile: args[0] ?? '', options: parseRenderOptions(flags) };
  },
  async run(ctx, { manifestFile, options }) {
    const { runRender } = await import('../../app/render.js');
    const { renderIssues } = await import('../render/issues.js');
    return runRender(ctx, manifestFile, options, { issues: renderIssues });
  },
});
