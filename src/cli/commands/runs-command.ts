import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { runRuns } from '../../app/runs.js';
import type { Flags } from '../parse/common.js';
import { parseRunsOptions } from '../parse/runs.js';
import { renderIssues } from '../render/issues.js';
import { renderRuns } from '../render/runs.js';
import { renderUnfinishedRuns } from '../render/unfinished-runs.js';

/** `runner runs FILE`: the use case is src/app/runs.ts; the terminal renders what it finds. */
export async function runRunsCommand(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  const [manifestFile = ''] = args;
  return runRuns(ctx, manifestFile, parseRunsOptions(flags), {
    renderIssues,
    renderRuns,
    renderUnfinishedRuns,
  });
}
