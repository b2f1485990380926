import type { CommandContext } from '../../app/context.js';
import { runPlan, type PlanView } from '../../app/plan.js';
import { connect } from '../connect.js';
import { runPlanMany, wantsPlanSet } from '../../app/plan-many.js';
import { parseStringOption } from '../../app/parse-options.js';
import { emitDiff } from './diff.js';
import { readDiffFormat } from '../parse/diff.js';
import { isGithubActions, renderAnnotations } from '../render/annotations.js';
import { renderIssues } from '../render/issues.js';

/**
 * `runner plan FILE`: the use case is src/app/plan.ts; the terminal gives it the service and shows
 * the manifest's problems (as GitHub Actions annotations too, when run there).
 */
export async function runPlanCommand(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
): Promise<number> {
  if (wantsPlanSet(args, options)) {
    // With --compare-to the output is a diff: its formats are the diff's (checked before any work).
    const format = options.compareTo === undefined ? undefined : readDiffFormat(options.format);
    const out = parseStringOption(options.out);
    return runPlanMany(ctx, args, options, {
      connect: (context) => connect(context),
      view: TERMINAL_VIEW,
      emitDiff: (diff, files) => emitDiff(ctx, diff, format ?? 'text', out, files),
    });
  }
  const [manifestFile = ''] = args;
  return runPlan(ctx, manifestFile, options, { connect: (context) => connect(context), view: TERMINAL_VIEW });
}

const TERMINAL_VIEW: PlanView = {
  issues: renderIssues,
  annotations: (issues, manifestFile, env) =>
    isGithubActions(env) ? renderAnnotations(issues, manifestFile) : [],
};
