import { ExitCode } from '../../errors.js';
import { validateManifestOffline } from '../../manifest/validate-manifest.js';
import { buildStatusView } from '../../state/status-view.js';
import type { CommandContext } from '../context.js';
import { todayUtc } from '../prepare-plan.js';
import { readSecretGuard } from '../read-secrets.js';
import { renderIssues } from '../render/issues.js';
import { renderStatus } from '../render/status.js';
import { readRunId, readStateDir } from '../run-options.js';
import { readTargeting } from '../targeting-options.js';
import { readExistingRunState, targetRunJobs } from '../read-only-run.js';
import { loadVarOverrides, readVarFlags } from '../var-options.js';

/**
 * `runner status FILE`: every job of a run from its state journal, read-only (no lock, no network).
 * Jobs of the manifest that never ran show as pending. A run without state is an error (exit 1)
 * naming the runs that do exist, never a table of pending jobs.
 */
export async function runStatus(ctx: CommandContext, args: string[], options: Record<string, unknown>) {
  const [manifestFile = ''] = args;
  const varInput = await loadVarOverrides(readVarFlags(options));
  const offline = await validateManifestOffline(manifestFile, {
    varOverrides: varInput.overrides,
    env: ctx.env,
    date: todayUtc(),
    secrets: await readSecretGuard(ctx),
  });
  const { loaded } = offline;
  const problems = [...varInput.issues, ...offline.issues];
  if (loaded === undefined || varInput.issues.some((issue) => issue.severity === 'error')) {
    ctx.output.err(renderIssues(problems, manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  const identity = { pipeline: loaded.manifest.name, runId: readRunId(options) };
  const where = { manifestFile, ...identity, ...readStateDir(options) };
  const replay = await readExistingRunState(ctx, where);
  const targeted = targetRunJobs(
    replay.jobs,
    offline.jobs.map((job) => job.id),
    readTargeting(options),
  );
  if ('issues' in targeted) {
    ctx.output.err(renderIssues(targeted.issues, manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  const view = buildStatusView(targeted.jobs, targeted.planIds);
  ctx.output.out(
    options.json === true
      ? JSON.stringify(view, null, 2)
      : renderStatus(view, ctx.output.style, ctx.output.width),
  );
  return ExitCode.Success;
}
