import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { runRender } from '../../app/render.js';
import type { Flags } from '../parse/common.js';
import { parseRenderOptions } from '../parse/render.js';
import { renderIssues } from '../render/issues.js';

/** `runner render FILE`: the use case is src/app/render.ts; the terminal renders the problems. */
export async function runRenderCommand(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  const [manifestFile = ''] = args;
  return runRender(ctx, manifestFile, parseRenderOptions(flags), { issues: renderIssues });
}
