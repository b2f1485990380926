import { ExitCode } from '../errors.js';
import { validateManifestOffline } from '../manifest/validate-manifest.js';
import { collectPayloads, renderPayloadsText } from '../plan/render-payloads.js';
import type { CommandContext } from './context.js';
import { todayUtc } from './prepare-plan.js';
import { readSecretGuard } from './read-secrets.js';
import type { RenderIssues } from './views.js';
import { readTargeting, selectTargets } from './targeting-options.js';
import { loadVarOverrides, readVarFlags } from './var-options.js';

/**
 * `runner render FILE`: each job's prompt and params with templates rendered and defaults merged,
 * offline (the catalog's defaults are applied by `plan --show payloads`). Exit 2 on invalid input.
 */
export async function runRender(
  ctx: CommandContext,
  manifestFile: string,
  options: Record<string, unknown>,
  view: { issues: RenderIssues },
): Promise<number> {
  const varInput = await loadVarOverrides(readVarFlags(options));
  const stageOne = await validateManifestOffline(manifestFile, {
    env: ctx.env,
    date: todayUtc(),
    secrets: await readSecretGuard(ctx),
    varOverrides: varInput.overrides,
    checkJobsDespiteErrors: true,
  });
  const targets = selectTargets(stageOne.jobs, { ...readTargeting(options), replace: [] });
  const issues = [...varInput.issues, ...stageOne.issues, ...targets.issues];
  if (issues.some((issue) => issue.severity === 'error')) {
    ctx.output.err(view.issues(issues, manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  // Warnings as validate gives them (a var file setting an undeclared var is likely a typo), on
  // stderr so the rendered jobs on stdout stay what a script reads.
  if (issues.length > 0) ctx.output.err(view.issues(issues, manifestFile, ctx.output.style));
  const payloads = collectPayloads(targets.selected);
  ctx.output.out(
    options.json === true
      ? JSON.stringify({ schemaVersion: 1, manifestFile, jobs: payloads }, null, 2)
      : renderPayloadsText(payloads).trimEnd(),
  );
  return ExitCode.Success;
}
