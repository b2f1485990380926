import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { runState } from '../../app/state.js';
import type { Flags } from '../parse/common.js';
import { parseStateOptions } from '../parse/state.js';
import { renderIssues } from '../render/issues.js';

/**
 * `runner state check|push|pull|lease FILE`: the use cases are src/app/state.ts and state-move.ts; the
 * terminal renders the problems.
 */
export async function runStateCommand(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  const [action = '', manifestFile = ''] = args;
  return runState(ctx, action, manifestFile, parseStateOptions(action, flags, ctx.env), {
    issues: renderIssues,
  });
}
