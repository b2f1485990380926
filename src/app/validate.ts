import { ExitCode } from '../errors.js';
import type { CommandContext } from './context.js';
import { preparePlan, readPrepareOptions } from './prepare-plan.js';
import { refuseSavedPlanAsManifest } from './saved-plan-io.js';
import type { ValidateEffects } from './views.js';

/**
 * `runner validate FILE`: every problem at once; exit 2 when there is an error (or, with `--strict`, a
 * warning). Under GitHub Actions each issue is also an annotation on its manifest line (on stderr, so
 * `--json` output stays clean).
 */
export async function runValidate(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
  effects: ValidateEffects,
): Promise<number> {
  const { renderIssues, issuesToJson, renderAnnotations, isGithubActions } = effects.view;
  const [manifestFile = ''] = args;
  await refuseSavedPlanAsManifest(manifestFile, 'validate');
  const prepared = await preparePlan(ctx, readPrepareOptions(manifestFile, options), () =>
    effects.fetchCatalog(),
  );
  const { output } = ctx;
  const strict = options.strict === true;
  const failsStrict = strict && prepared.issues.some((issue) => issue.severity === 'warning');
  const valid = prepared.ok && !failsStrict;
  if (isGithubActions(ctx.env)) {
    for (const line of renderAnnotations(prepared.issues, manifestFile)) output.err(line);
  }
  if (options.json === true) {
    const json = issuesToJson(prepared.issues, manifestFile);
    output.out(JSON.stringify(strict ? { ...json, strict, valid } : json, null, 2));
  } else if (failsStrict) {
    output.err(renderIssues(prepared.issues, manifestFile, output.style));
    output.err(`${manifestFile} is not valid under --strict: warnings count as errors.`);
  } else if (prepared.ok) {
    if (prepared.issues.length > 0) output.err(renderIssues(prepared.issues, manifestFile, output.style));
    const count = prepared.plan.jobs.length;
    output.out(`${output.style.green('✓')} ${manifestFile} is valid: ${count} job${count === 1 ? '' : 's'}.`);
  } else {
    output.err(renderIssues(prepared.issues, manifestFile, output.style));
  }
  return valid ? ExitCode.Success : ExitCode.InvalidInput;
}
