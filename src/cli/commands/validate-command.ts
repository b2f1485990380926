import type { CommandContext } from '../../app/context.js';
import { runValidate } from '../../app/validate.js';
import { withConnection } from '../connect.js';
import { isGithubActions, renderAnnotations } from '../render/annotations.js';
import { issuesToJson, renderIssues } from '../render/issues.js';

/**
 * `runner validate FILE`: the use case is src/app/validate.ts; the terminal gives it the service's
 * catalog (asked only without `--catalog`) and shows the problems (as GitHub Actions annotations too).
 */
export async function runValidateCommand(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  return runValidate(ctx, args, options, {
    fetchCatalog: () => withConnection(ctx, ({ client }) => client.listModels()),
    view: { renderIssues, issuesToJson, isGithubActions, renderAnnotations },
  });
}
