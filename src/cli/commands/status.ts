import { ExitCode } from '../../errors.js';
import { validateManifestOffline } from '../../manifest/validate-manifest.js';
import { replayJournal } from '../../state/replay.js';
import { readJournalText, resolveStateDir } from '../../state/state-dir.js';
import { buildStatusView } from '../../state/status-view.js';
import type { CommandContext } from '../context.js';
import { todayUtc } from '../prepare-plan.js';
import { readSecretGuard } from '../read-secrets.js';
import { renderIssues } from '../render/issues.js';
import { renderStatus } from '../render/status.js';
import { readRunId, readStateDir } from '../run-options.js';
import { readTargeting, selectTargets } from '../targeting-options.js';
import { loadVarOverrides, readVarFlags } from '../var-options.js';
import type { JobState } from '../../state/job-state.js';
import type { ValidationIssue } from '../../manifest/types.js';
import type { Targeting } from '../../plan/select-jobs.js';

/**
 * `runner status FILE`: every job of a run from its state journal, read-only (no lock, no network).
 * Jobs of the manifest that never ran show as pending.
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
  const stateDir = resolveStateDir({
    manifestFile,
    pipeline: loaded.manifest.name,
    runId: readRunId(options),
    ...readStateDir(options),
  });
  const { jobs, warnings } = replayJournal(await readJournalText(stateDir));
  for (const warning of warnings) ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
  const targeted = targetStatus(
    jobs,
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

/** `--only` / `--exclude` over the manifest's jobs and any job the state still holds. */
function targetStatus(
  jobs: ReadonlyMap<string, JobState>,
  planIds: string[],
  targeting: Targeting,
): { jobs: ReadonlyMap<string, JobState>; planIds: string[] } | { issues: ValidationIssue[] } {
  const planned = new Set(planIds);
  const all = [...planIds, ...[...jobs.keys()].filter((id) => !planned.has(id))];
  const selection = selectTargets(
    all.map((id) => ({ id })),
    { ...targeting, replace: [] },
  );
  if (selection.issues.length > 0) return { issues: selection.issues };
  const kept = new Set(selection.selected.map((job) => job.id));
  return {
    jobs: new Map([...jobs].filter(([id]) => kept.has(id))),
    planIds: planIds.filter((id) => kept.has(id)),
  };
}
