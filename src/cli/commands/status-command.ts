import type { CommandContext } from '../../app/context.js';
import { runStatus } from '../../app/status.js';
import { renderIssues } from '../render/issues.js';
import { renderStatus } from '../render/status.js';

/** `runner status FILE`: the use case is src/app/status.ts; the terminal renders what it finds. */
export async function runStatusCommand(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  return runStatus(ctx, args, options, { renderIssues, renderStatus });
}
