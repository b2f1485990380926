import { ExitCode } from '../errors.js';
import type { CommandContext } from './context.js';
import { preparePlan, readPrepareOptions } from './prepare-plan.js';
import { refuseSavedPlanAsManifest } from './saved-plan-io.js';
import type { ValidationIssue } from '../manifest/types.js';
import type { Model } from '../service/types.js';
import type { RenderIssues } from './issues-view.js';

/** What validate needs from outside, passed in by the CLI (src/cli/commands/validate-command.ts). */
export interface ValidateEffects {
  /** The service's catalog, asked only when no `--catalog` file is given. */
  fetchCatalog: () => Promise<Model[]>;
  view: {
    issues: RenderIssues;
    /** The problems as `--json` prints them. */
    issuesJson(issues: readonly ValidationIssue[], manifestFile: string): object;
    /** Each problem as a CI annotation line (GitHub Actions' `::error file=…::`); none elsewhere. */
    annotations(issues: readonly ValidationIssue[], manifestFile: string, env: NodeJS.ProcessEnv): string[];
  };
}

/**
 * `runner validate FILE`: every problem at once; exit 2 when there is an error (or, with `--strict`, a
 * warning). Under GitHub Actions each issue is also an annotation on its manifest line (on stderr, so
 * `--json` output stays clean).
 */
export async function runValidate(
  ctx: CommandContext,
  manifestFile: string,
  options: Record<string, unknown>,
  effects: ValidateEffects,
): Promise<number> {
  const { fetchCatalog, view } = effects;
  await refuseSavedPlanAsManifest(manifestFile, 'validate');
  const prepared = await preparePlan(ctx, readPrepareOptions(manifestFile, options), fetchCatalog);
  const { output } = ctx;
  const strict = options.strict === true;
  const failsStrict = strict && prepared.issues.some((issue) => issue.severity === 'warning');
  const valid = prepared.ok && !failsStrict;
  for (const line of view.annotations(prepared.issues, manifestFile, ctx.env)) output.err(line);
  if (options.json === true) {
    const json = view.issuesJson(prepared.issues, manifestFile);
    output.out(JSON.stringify(strict ? { ...json, strict, valid } : json, null, 2));
  } else if (failsStrict) {
    output.err(view.issues(prepared.issues, manifestFile, output.style));
    output.err(`${manifestFile} is not valid under --strict: warnings count as errors.`);
  } else if (prepared.ok) {
    if (prepared.issues.length > 0) output.err(view.issues(prepared.issues, manifestFile, output.style));
    const count = prepared.plan.jobs.length;
    output.out(`${output.style.green('✓')} ${manifestFile} is valid: ${count} job${count === 1 ? '' : 's'}.`);
  } else {
    output.err(view.issues(prepared.issues, manifestFile, output.style));
  }
  return valid ? ExitCode.Success : ExitCode.InvalidInput;
}
