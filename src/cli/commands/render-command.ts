import type { CommandContext } from '../../app/context.js';
import { runRender } from '../../app/render.js';
import { renderIssues } from '../render/issues.js';

/** `runner render FILE`: the use case is src/app/render.ts; the terminal renders the problems. */
export async function runRenderCommand(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  const [manifestFile = ''] = args;
  return runRender(ctx, manifestFile, options, { issues: renderIssues });
}
