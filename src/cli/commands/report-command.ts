import type { CommandContext } from '../../app/context.js';
import { runReport } from '../../app/report.js';
import { renderIssues } from '../render/issues.js';

/** `runner report FILE`: the use case is src/app/report.ts; the terminal renders the problems. */
export async function runReportCommand(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  const [manifestFile = ''] = args;
  return runReport(ctx, manifestFile, options, { issues: renderIssues });
}
