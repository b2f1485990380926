import { defineCommand, flag, SERVICE_FLAGS } from './command.js';
import { MANIFEST_FLAGS, TARGETING_FLAGS, VAR_FLAGS } from './shared-flags.js';

/**
 * `runner validate FILE`: the use case is src/app/validate.ts; the terminal gives it the service's
 * catalog (asked only without `--catalog`) and shows the problems (as GitHub Actions annotations too).
 */
export const validateCommand = defineCommand({
  name: 'validate',
  args: '<manifest>',
  description: 'Check a manifest: YAML, schema, templates, matrix, params against the catalog',
  flags: [
    ...MANIFEST_FLAGS,
    flag('--json', 'Print issues as JSON'),
    flag('--strict', 'Fail (exit 2) on warnings too'),
    ...TARGETING_FLAGS,
    ...VAR_FLAGS,
  ],
  globals: SERVICE_FLAGS,
  examples: ['runner validate pipelines/demo.yaml --catalog catalog.json'],
  async parse({ args, flags }) {
    const { parseValidateOptions } = await import('../parse/validate.js');
    return { manifestFile: args[0] ?? '', options: parseValidateOptions(flags) };
  },
  async run(ctx, { manifestFile, options }) {
    const { runValidate } = await import('../../app/validate.js');
    const { withConnection } = await import('../effects/connect.js');
    const { isGithubActions, renderAnnotations } = await import('../render/annotations.js');
    const { issuesToJson, renderIssues } = await import('../render/issues.js');
    return runValidate(ctx, manifestFile, options, {
      fetchCatalog: () => withConnection(ctx, ({ client }) => client.listModels()),
      view: { renderIssues, issuesToJson, isGithubActions, renderAnnotations },
    });
  },
});
