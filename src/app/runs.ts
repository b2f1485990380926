import { validateManifestOffline } from '../manifest/validate-manifest.js';
import { listStoredRuns } from '../state/index.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import { todayUtc } from './prepare-plan.js';
import type { RunsCommandView } from './views.js';
import type { StateOptions } from './run-options.js';

/** What `runner runs` is asked. */
export interface RunsOptions {
  /** Where the pipeline's runs keep their state (`--state-dir`, `--state`). */
  state: StateOptions;
  /** `--json`: the runs as JSON instead of the table. */
  json: boolean;
}

/** `runner runs FILE`: every run of the manifest's pipeline that has state, read-only (no lock, no network). */
export async function runRuns(
  ctx: CommandContext,
  manifestFile: string,
  options: RunsOptions,
  show: RunsCommandView,
): Promise<Outcome> {
  const { renderIssues, renderRuns, renderUnfinishedRuns } = show;
  const offline = await validateManifestOffline(manifestFile, { env: ctx.env, date: todayUtc() });
  const { loaded } = offline;
  if (loaded === undefined) {
    ctx.output.err(renderIssues(offline.issues, manifestFile, ctx.output.style));
    return 'invalid-input';
  }
  const view = await listStoredRuns({
    manifestFile,
    pipeline: loaded.manifest.name,
    ...options.state,
    // A run's size, for runs of earlier releases whose journal does not record it.
    plannedJobs: offline.jobs.length,
  });
  for (const run of view.runs) {
    for (const warning of run.warnings)
      ctx.output.err(`${ctx.output.style.yellow('warning')} run ${run.runId}: ${warning}`);
  }
  ctx.output.out(
    options.json ? JSON.stringify(view, null, 2) : renderRuns(view, ctx.output.style, ctx.output.width),
  );
  // `runs` does not reach the service: the hint's apply finds it as the environment says. It finds the
  // state as `runs` did: a hint without `--state` would apply the run from an empty `.runner/` and pay
  // for its open jobs again (#31.1).
  const { stateDir, stateUrl } = options.state;
  const where = { manifestFile, options: { stateDir, state: stateUrl }, global: {} };
  for (const line of renderUnfinishedRuns(view.runs, where, ctx.output.style)) ctx.output.err(line);
  return 'done';
}
