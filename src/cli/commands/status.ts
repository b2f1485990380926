import { ExitCode, RunnerError } from '../../errors.js';
import { validateManifestOffline } from '../../manifest/validate-manifest.js';
import { listRuns } from '../../state/list-runs.js';
import { readRunState } from '../../state/read-run-state.js';
import { buildStatusView } from '../../state/status-view.js';
import type { CommandContext } from '../context.js';
import { todayUtc } from '../prepare-plan.js';
import { renderIssues } from '../render/issues.js';
import { renderStatus } from '../render/status.js';
import { readRunId, readStateDir } from '../run-options.js';

/**
 * `runner status FILE`: every job of a run from its state journal, read-only (no lock, no network).
 * Jobs of the manifest that never ran show as pending. A run without state is an error (exit 1)
 * naming the runs that do exist, never a table of pending jobs.
 */
export async function runStatus(ctx: CommandContext, args: string[], options: Record<string, unknown>) {
  const [manifestFile = ''] = args;
  const offline = await validateManifestOffline(manifestFile, { env: ctx.env, date: todayUtc() });
  const { loaded } = offline;
  if (loaded === undefined) {
    ctx.output.err(renderIssues(offline.issues, manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  const identity = { pipeline: loaded.manifest.name, runId: readRunId(options) };
  const where = { manifestFile, ...identity, ...readStateDir(options) };
  const { location, exists, replay } = await readRunState(where);
  if (!exists) throw await noStateError(where, location.dir);
  for (const warning of [...location.warnings, ...replay.warnings])
    ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
  const view = buildStatusView(
    replay.jobs,
    offline.jobs.map((job) => job.id),
  );
  ctx.output.out(
    options.json === true
      ? JSON.stringify(view, null, 2)
      : renderStatus(view, ctx.output.style, ctx.output.width),
  );
  return ExitCode.Success;
}

async function noStateError(
  where: { manifestFile: string; pipeline: string; runId: string; stateDir?: string },
  dir: string,
): Promise<RunnerError> {
  const { runs } = await listRuns(where);
  const stateFlag = where.stateDir === undefined ? '' : ` --state-dir ${where.stateDir}`;
  const known =
    runs.length === 0
      ? `No run of pipeline "${where.pipeline}" has state there yet: \`runner apply ${where.manifestFile}\` starts one.`
      : `Runs with state: ${runs.map((run) => run.runId).join(', ')} (see \`runner runs ${where.manifestFile}${stateFlag}\`); pick one with --run.`;
  return new RunnerError(
    'STATE_NOT_FOUND',
    `Run "${where.runId}" of pipeline "${where.pipeline}" has no state: ${dir} holds no journal.`,
    { hint: known },
  );
}
