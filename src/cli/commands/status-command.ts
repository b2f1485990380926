import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { runStatus } from '../../app/status.js';
import type { Flags } from '../parse/common.js';
import { parseStatusOptions } from '../parse/status.js';
import { renderIssues } from '../render/issues.js';
import { renderStatus } from '../render/status.js';

/** `runner status FILE`: the use case is src/app/status.ts; the terminal renders what it finds. */
export async function runStatusCommand(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  const [manifestFile = ''] = args;
  return runStatus(ctx, manifestFile, parseStatusOptions(flags), { renderIssues, renderStatus });
}
