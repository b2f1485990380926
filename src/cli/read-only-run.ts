import { RunnerError } from '../errors.js';
import type { ValidationIssue } from '../manifest/types.js';
import type { Targeting } from '../plan/select-jobs.js';
import type { JobState } from '../state/job-state.js';
import { listRuns } from '../state/list-runs.js';
import { readRunState } from '../state/read-run-state.js';
import type { ReplayResult } from '../state/replay.js';
import type { CommandContext } from './context.js';
import { selectTargets } from './targeting-options.js';

type RunWhere = { manifestFile: string; pipeline: string; runId: string; stateDir?: string };

/**
 * A run's replayed state for the read-only commands (status, report), its warnings printed. A run with
 * no state is an error (exit 1) naming the runs that do exist, never a page or table of "pending"
 * jobs (#7.2).
 */
export async function readExistingRunState(
  ctx: Pick<CommandContext, 'output'>,
  where: RunWhere,
): Promise<ReplayResult> {
  const { location, exists, replay } = await readRunState(where);
  if (!exists) throw await noStateError(where, location.dir);
  for (const warning of [...location.warnings, ...replay.warnings])
    ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
  return replay;
}

async function noStateError(where: RunWhere, dir: string): Promise<RunnerError> {
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

/** `--only` / `--exclude` over the manifest's jobs and any job the state still holds. */
export function targetRunJobs(
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
