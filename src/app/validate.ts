import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import { preparePlan, toPrepareOptions, type ManifestOptions } from './prepare-plan.js';
import { refuseSavedPlanAsManifest } from './saved-plan-io.js';
import type { ValidateEffects } from './views.js';

/** What `runner validate` is asked: the manifest's jobs, and how strictly and in what form to answer. */
export interface ValidateOptions extends ManifestOptions {
  /** `--strict`: warnings fail too (exit 2). */
  strict: boolean;
  /** `--json`: the problems as JSON. */
  json: boolean;
}

/**
 * `runner validate FILE`: every problem at once; exit 2 when there is an error (or, with `--strict`, a
 * warning). Under GitHub Actions each issue is also an annotation on its manifest line (on stderr, so
 * `--json` output stays clean).
 */
export async function runValidate(
  ctx: CommandContext,
  manifestFile: string,
  options: ValidateOptions,
  effects: ValidateEffects,
): Promise<Outcome> {
  const { renderIssues, issuesToJson, renderAnnotations, isGithubActions } = effects.view;
  await refuseSavedPlanAsManifest(manifestFile, 'validate');
  const prepared = await preparePlan(ctx, toPrepareOptions(manifestFile, options), () =>
    effects.fetchCatalog(),
  );
  const { output } = ctx;
  const { strict } = options;
  const failsStrict = strict && prepared.issues.some((issue) => issue.severity === 'warning');
  const valid = prepared.ok && !failsStrict;
  if (isGithubActions(ctx.env)) {
    for (const line of renderAnnotations(prepared.issues, manifestFile)) output.err(line);
  }
  if (options.json) {
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
  return valid ? 'done' : 'invalid-input';
}
