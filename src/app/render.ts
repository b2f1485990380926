import { validateManifestOffline } from '../manifest/validate-manifest.js';
import { collectPayloads, renderPayloadsText } from '../plan/render-payloads.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import { todayUtc } from './prepare-plan.js';
import { readSecretGuard } from './read-secrets.js';
import type { RenderIssues } from './views.js';
import { selectTargets } from './targeting-options.js';
import { loadVarOverrides, type VarFlags } from './var-options.js';
import type { Targeting } from '../plan/select-jobs.js';

/** What `runner render` is asked: which jobs, with which vars, in what form. */
export interface RenderOptions {
  /** `--var` / `--var-file`. */
  vars: VarFlags;
  /** `--only` / `--exclude`. */
  targeting: Pick<Targeting, 'only' | 'exclude'>;
  /** `--json`: the jobs as JSON. */
  json: boolean;
}

/**
 * `runner render FILE`: each job's prompt and params with templates rendered and defaults merged,
 * offline (the catalog's defaults are applied by `plan --show payloads`). Exit 2 on invalid input.
 */
export async function runRender(
  ctx: CommandContext,
  manifestFile: string,
  options: RenderOptions,
  view: { issues: RenderIssues },
): Promise<Outcome> {
  const varInput = await loadVarOverrides(options.vars);
  const stageOne = await validateManifestOffline(manifestFile, {
    env: ctx.env,
    date: todayUtc(),
    secrets: await readSecretGuard(ctx),
    varOverrides: varInput.overrides,
    checkJobsDespiteErrors: true,
  });
  const targets = selectTargets(stageOne.jobs, { ...options.targeting, replace: [] });
  const issues = [...varInput.issues, ...stageOne.issues, ...targets.issues];
  if (issues.some((issue) => issue.severity === 'error')) {
    ctx.output.err(view.issues(issues, manifestFile, ctx.output.style));
    return 'invalid-input';
  }
  // Warnings as validate gives them (a var file setting an undeclared var is likely a typo), on
  // stderr so the rendered jobs on stdout stay what a script reads.
  if (issues.length > 0) ctx.output.err(view.issues(issues, manifestFile, ctx.output.style));
  const payloads = collectPayloads(targets.selected);
  ctx.output.out(
    options.json
      ? JSON.stringify({ schemaVersion: 1, manifestFile, jobs: payloads }, null, 2)
      : renderPayloadsText(payloads).trimEnd(),
  );
  return 'done';
}
