import { RunnerError } from '../errors.js';
import type { ExpandedJob, LoadedManifest, ValidationIssue } from '../manifest/types.js';
import { validateManifestOffline, type OfflineValidationContext } from '../manifest/validate-manifest.js';
import type { Targeting } from '../plan/select-jobs.js';
import {
  type JobState,
  listStoredRuns,
  readStoredRun,
  recordedOutputDir,
  recordedOutputHost,
  type ReplayResult,
  type RunAddress,
} from '../state/index.js';
import { isRecordedOutputHere } from './apply-options.js';
import type { CommandContext } from './context.js';
import { peekRunDate, runDateOf } from './run-date.js';
import { readSecretGuard } from './read-secrets.js';
import { SIMULATED_STATE_NOTE } from './simulated-state-note.js';
import type { StateOptions } from './run-options.js';
import { rerunCommand, type RepeatedFlags } from './rerun-command.js';
import { selectTargets } from './targeting-options.js';
import { loadVarOverrides, type VarFlags } from './var-options.js';

/** Which run a read-only command reads, and which of its jobs (`--run`, `--state-dir`, vars, targeting). */
export interface ReadRunOptions {
  /** `--run`; `default` when not given. */
  runId: string;
  /** Where the run's state lives (`--state-dir`, `--state`). */
  state: StateOptions;
  /** `--var` / `--var-file`: the jobs are expanded with them, as apply did. */
  vars: VarFlags;
  /** `--only` / `--exclude`. */
  targeting: Pick<Targeting, 'only' | 'exclude'>;
  /** The flags as given, for the commands a hint names (./rerun-command.ts). */
  repeat: RepeatedFlags;
}

/** What a read-only command (status, report) knows of a run: the manifest's jobs and the run's state. */
export interface RunForReading {
  loaded: LoadedManifest;
  runId: string;
  /** The manifest's jobs `--only` / `--exclude` kept, expanded with the run's own `{{ date }}`. */
  jobs: ExpandedJob[];
  /** The state of the kept jobs, including jobs the manifest no longer lists. */
  state: ReadonlyMap<string, JobState>;
  /** The output folder the run recorded (or, for a run of an earlier release, where it downloaded). */
  recordedOutputDir: string | undefined;
  /** True when that folder is this machine's (`isRecordedOutputHere`): status and report read it. */
  recordedHere: boolean;
  /** Which machine did each job, when several can apply the run (PostgreSQL). */
  machines?: ReadonlyMap<string, string>;
}

/**
 * The manifest (offline: no catalog, no network) and the replayed state of the run a read-only command
 * names, with `--var`, `--only` / `--exclude` applied. Templates see the date the run STARTED, like apply
 * does, so a run begun yesterday shows yesterday's job ids, not today's as "pending". A manifest that
 * cannot be read or a targeting mistake comes back as `issues` (exit 2); a run without state throws.
 */
export async function readRunForReading(
  ctx: Pick<CommandContext, 'output' | 'env'> & { global?: Pick<CommandContext['global'], 'apiKeyFile'> },
  manifestFile: string,
  options: ReadRunOptions,
): Promise<RunForReading | { issues: ValidationIssue[] }> {
  const { runId } = options;
  const varInput = await loadVarOverrides(options.vars);
  const secrets = await readSecretGuard(ctx);
  const expand = (date: OfflineValidationContext['date']) =>
    validateManifestOffline(manifestFile, { varOverrides: varInput.overrides, env: ctx.env, date, secrets });
  const addressOf = (pipeline: string): RunAddress => ({
    manifestFile,
    pipeline,
    runId,
    ...options.state,
  });
  let offline = await expand((pipeline) => peekRunDate(addressOf(pipeline)));
  const { loaded } = offline;
  if (loaded === undefined || varInput.issues.some((issue) => issue.severity === 'error')) {
    return { issues: [...varInput.issues, ...offline.issues] };
  }
  const replay = await readExistingRunState(ctx, addressOf(loaded.manifest.name), options.repeat);
  const runDate = runDateOf(replay.runs);
  if (runDate !== offline.date) offline = await expand(runDate);
  const targeted = targetRunJobs(
    replay.jobs,
    offline.jobs.map((job) => job.id),
    options.targeting,
  );
  if ('issues' in targeted) return { issues: targeted.issues };
  const kept = new Set(targeted.planIds);
  return {
    loaded,
    runId,
    jobs: offline.jobs.filter((job) => kept.has(job.id)),
    state: targeted.jobs,
    recordedOutputDir: recordedOutputDir(replay.runs, replay.jobs),
    recordedHere: isRecordedOutputHere(
      recordedOutputDir(replay.runs, replay.jobs),
      recordedOutputHost(replay.runs),
      ctx.env,
    ),
    ...(replay.machines === undefined ? {} : { machines: replay.machines }),
  };
}

/**
 * A run's replayed state for the read-only commands (status, report), its warnings printed. A run with
 * no state is an error (exit 1) naming the runs that do exist, never a page or table of "pending"
 * jobs (#7.2).
 */
async function readExistingRunState(
  ctx: Pick<CommandContext, 'output'>,
  where: RunAddress,
  repeat: RepeatedFlags,
): Promise<ReplayResult> {
  const { location, exists, replay } = await readStoredRun(where, { machines: true });
  if (!exists) throw await noStateError(where, location.dir, repeat);
  for (const warning of [...location.warnings, ...replay.warnings])
    ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
  return replay;
}

async function noStateError(where: RunAddress, dir: string, repeat: RepeatedFlags): Promise<RunnerError> {
  const { runs } = await listStoredRuns(where);
  const known =
    runs.length === 0
      ? `No run of pipeline "${where.pipeline}" has state there yet: \`${rerunCommand('apply', where.manifestFile, repeat, {})}\` starts one, against the service (paid). ${SIMULATED_STATE_NOTE}`
      : `Runs with state: ${runs.map((run) => run.runId).join(', ')} (see \`${rerunCommand('runs', where.manifestFile, repeat, {})}\`); pick one with --run.`;
  return new RunnerError(
    'STATE_NOT_FOUND',
    `Run "${where.runId}" of pipeline "${where.pipeline}" has no state: ${dir} holds no journal.`,
    { hint: known },
  );
}

/** `--only` / `--exclude` over the manifest's jobs and any job the state still holds. */
function targetRunJobs(
  jobs: ReadonlyMap<string, JobState>,
  planIds: string[],
  targeting: Pick<Targeting, 'only' | 'exclude'>,
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
