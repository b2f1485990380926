import type { CommandContext } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';
import { runPlan, type PlanView } from '../../app/plan.js';
import { connect } from '../connect.js';
import { runPlanMany } from '../../app/plan-many.js';
import { emitDiff } from './diff.js';
import type { Flags } from '../parse/common.js';
import { parsePlanManyOptions, parsePlanOptions, wantsPlanSet } from '../parse/plan.js';
import { isGithubActions, renderAnnotations } from '../render/annotations.js';
import { renderIssues } from '../render/issues.js';

/**
 * `runner plan FILE`: the use case is src/app/plan.ts; the terminal gives it the service and shows
 * the manifest's problems (as GitHub Actions annotations too, when run there).
 */
export async function runPlanCommand(ctx: CommandContext, args: string[], flags: Flags): Promise<Outcome> {
  if (wantsPlanSet(args, flags)) {
    // With --compare-to the output is a diff: its formats are the diff's (checked before any work).
    const options = parsePlanManyOptions(flags);
    return runPlanMany(ctx, args, options, {
      connect: (context) => connect(context),
      view: TERMINAL_VIEW,
      emitDiff: (diff, files) => emitDiff(ctx, diff, options.format, options.out, files),
    });
  }
  const [manifestFile = ''] = args;
  return runPlan(ctx, manifestFile, parsePlanOptions(flags), {
    connect: (context) => connect(context),
    view: TERMINAL_VIEW,
  });
}

const TERMINAL_VIEW: PlanView = {
  issues: renderIssues,
  annotations: (issues, manifestFile, env) =>
    isGithubActions(env) ? renderAnnotations(issues, manifestFile) : [],
};
