import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { runValidate } from '../../app/validate.js';
import { withConnection } from '../connect.js';
import type { Flags } from '../parse/common.js';
import { parseValidateOptions } from '../parse/validate.js';
import { isGithubActions, renderAnnotations } from '../render/annotations.js';
import { issuesToJson, renderIssues } from '../render/issues.js';

/**
 * `runner validate FILE`: the use case is src/app/validate.ts; the terminal gives it the service's
 * catalog (asked only without `--catalog`) and shows the problems (as GitHub Actions annotations too).
 */
export async function runValidateCommand(
  ctx: CommandContext,
  args: string[],
  flags: Flags,
): Promise<Outcome> {
  const [manifestFile = ''] = args;
  return runValidate(ctx, manifestFile, parseValidateOptions(flags), {
    fetchCatalog: () => withConnection(ctx, ({ client }) => client.listModels()),
    view: { renderIssues, issuesToJson, isGithubActions, renderAnnotations },
  });
}
