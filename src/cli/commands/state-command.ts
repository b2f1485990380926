import type { CommandContext } from '../../app/context.js';
import { runState } from '../../app/state.js';
import { renderIssues } from '../render/issues.js';

/**
 * `runner state check|push|pull|lease FILE`: the use cases are src/app/state.ts and state-move.ts; the
 * terminal renders the problems.
 */
export async function runStateCommand(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  const [action = '', manifestFile = ''] = args;
  return runState(ctx, action, manifestFile, options, { issues: renderIssues });
}
