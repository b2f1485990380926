import type { CommandContext } from '../../app/context.js';
import { runRuns } from '../../app/runs.js';
import { renderIssues } from '../render/issues.js';
import { renderRuns } from '../render/runs.js';
import { renderUnfinishedRuns } from '../render/unfinished-runs.js';

/** `runner runs FILE`: the use case is src/app/runs.ts; the terminal renders what it finds. */
export async function runRunsCommand(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  return runRuns(ctx, args, options, { renderIssues, renderRuns, renderUnfinishedRuns });
}
