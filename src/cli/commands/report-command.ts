import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { runReport } from '../../app/report.js';
import type { Flags } from '../parse/common.js';
import { parseReportOptions } from '../parse/report.js';
import { renderIssues } from '../render/issues.js';

/** `runner report FILE`: the use case is src/app/report.ts; the terminal renders the problems. */
export async function runReportCommand(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  const [manifestFile = ''] = args;
  return runReport(ctx, manifestFile, parseReportOptions(flags), { issues: renderIssues });
}
