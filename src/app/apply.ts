import { resolve } from 'node:path';
import { machineName, sharePlanStrings, stateStoreFor } from '../state/index.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import {
  applyWriteTargets,
  isRecordedOutputHere,
  stateLocation,
  type ApplyOptions,
} from './apply-options.js';
import { preflightTargets } from './preflight.js';
import { preparePlan, toPrepareOptions, type PrepareOptions } from './prepare-plan.js';
import { peekRunDate, runDateOf } from './run-date.js';
import type { ServiceConnection } from './connection.js';
import { refuseOtherAccount } from './run-account.js';
import { projectIdentity, refuseOtherProject } from './run-project.js';
import { readSavedPlanIfAny, refuseChangedPlan, savedPlanInputs } from './saved-plan-io.js';
import { rerunCommand } from './rerun-command.js';
import { OUTPUT_ROOT_ENV } from './output-root.js';
import { readReplaceFrom } from './replace-from-options.js';
import type { ApplyEffects, ApplyView } from './apply-effects.js';
import {
  preflightRun,
  reportInvalid,
  type ApplyInputs,
  type OpenedRun,
  type PlannedRun,
  type Stopped,
} from './apply-phases.js';
import { authorize } from './apply-authorize.js';
import { execute, finish } from './apply-execute.js';

/**
 * `runner apply FILE|PLAN`: plan first (invalid input exits 2, over budget or credit exits 3, before any
 * job is created), confirm on a terminal, then run the plan with a journaled, resumable executor. Its
 * phases, in order:
 * 1. {@link resolveInputs}: a saved plan, if given one (it fixes the manifest, run, targeting and vars),
 *    `--replace-from`, and the paths the flags name (preflight: nothing is sent before they are known
 *    writable);
 * 2. {@link openAndPlan}: plan once without the lock (to know the pipeline, the output folder and the
 *    date), and open the run's state (its lock or lease);
 * 3. {@link planUnderLock}: plan again under the lock if the run started meanwhile, and refuse another
 *    account, repository or a changed saved plan;
 * 4. {@link authorize}: check the output, the replacements still due, the plan other machines run, the
 *    cost against the budget, the credit and `--max-credits`, and confirm (`ctx.confirm`; CI and `--yes`
 *    only say what starts);
 * 5. {@link execute}: claim the output folder and execute, every effect passed in (executePlan);
 * 6. {@link finish}: write the results index, report, JUnit and step summary, print the summary, and warn
 *    of other runs of the pipeline left unfinished.
 * Returns what happened (docs/cli-reference.md "Exit codes" gives each its code, through src/cli/exit-codes.ts).
 */
export async function runApply(
  ctx: CommandContext,
  target: string,
  given: ApplyOptions,
  effects: ApplyEffects,
): Promise<Outcome> {
  const inputs = await resolveInputs(ctx, target, given, effects.view);
  if ('outcome' in inputs) return inputs.outcome;
  const logger = effects.createLogger(inputs.ctx.global.logFile);
  const { maxDownloadBytes } = inputs.options;
  const connection = await effects.connect(
    inputs.ctx,
    (event) => logger.info({ event }, 'client'),
    maxDownloadBytes === undefined ? {} : { maxDownloadBytes },
  );
  try {
    const opened = await openAndPlan(inputs, connection, effects.view);
    if ('outcome' in opened) return opened.outcome;
    const { state } = opened;
    // Until the executor starts, a refusal (invalid input, over the budget, declined) leaves no run.
    let executing = false;
    /** A bucket output's store: its connections end with the command. */
    let bucket: { close?(): void } | undefined;
    try {
      const planned = await planUnderLock(opened, connection, effects.view);
      if ('outcome' in planned) return planned.outcome;
      const authorized = await authorize(planned, connection, effects.view);
      if ('outcome' in authorized) return authorized.outcome;
      bucket = authorized.outputs.bucket;
      executing = true;
      const executed = await execute(authorized, connection, effects, logger);
      return await finish(executed, effects.view, logger);
    } finally {
      bucket?.close?.();
      await state.close({ discardIfUnused: !executing });
    }
  } finally {
    await connection.close();
    logger.flush();
  }
}

/** Phase 1: a saved plan in place of the flags, `--replace-from`, and the paths the flags name. */
async function resolveInputs(
  shellCtx: CommandContext,
  target: string,
  given: ApplyOptions,
  view: ApplyView,
): Promise<ApplyInputs | Stopped> {
  // `apply plan.json`: a saved plan (told by its content) fixes the manifest, run, targeting and vars:
  // its options take the place of those of the command line, and are read from here on the same way.
  const saved = await readSavedPlanIfAny(target);
  const { manifestFile, options, outputRoot } =
    saved === undefined
      ? { manifestFile: target, options: given, outputRoot: undefined }
      : savedPlanInputs(target, saved, given, shellCtx.cwd);
  const ctx = saved === undefined ? shellCtx : useSavedOutputRoot(shellCtx, outputRoot);
  if (saved !== undefined) await refuseChangedPlan(target, saved, { manifestFile });
  const replaceFrom = await readReplaceFrom(options, options.runId);
  if (replaceFrom.given && !replaceFrom.ok)
    return { outcome: reportInvalid(ctx, view, replaceFrom, replaceFrom.file) };
  if (replaceFrom.given && replaceFrom.rejected === 0) {
    ctx.output.err('The decisions reject no job: nothing to re-generate. No job was created.');
    return { outcome: 'done' };
  }
  const rerun: ApplyInputs['rerun'] = (command, file, flags = options.repeat, extra = []) =>
    rerunCommand(command, file, flags, ctx.global, extra);
  await preflightTargets(applyWriteTargets(ctx, options), ctx.cwd);
  return { ctx, target, saved, manifestFile, options, replaceFrom, rerun };
}

/** Phase 2: the plan made without the lock, the paths the run will write checked, the state opened. */
async function openAndPlan(
  inputs: ApplyInputs,
  connection: ServiceConnection,
  view: ApplyView,
): Promise<OpenedRun | Stopped> {
  const { ctx, saved, manifestFile, options, replaceFrom } = inputs;
  const { runId } = options;
  const prepare = (date: PrepareOptions['date']) =>
    preparePlan(
      ctx,
      {
        ...toPrepareOptions(manifestFile, options, date),
        ...(replaceFrom.given && replaceFrom.ok ? { replaceFrom: replaceFrom.prepare } : {}),
      },
      () => connection.client.listModels(),
    );
  const simulated = connection.simulator !== undefined;
  const location = await stateLocation(options.state, simulated);
  const store = await stateStoreFor(location);
  // `{{ date }}` is the date the run started: a run resumed on a later day is planned with it, once.
  const startDate = (pipeline: string) => peekRunDate({ manifestFile, pipeline, runId, ...location });
  const firstTry = await prepare(saved?.date ?? startDate);
  if (!firstTry.ok) return { outcome: reportInvalid(ctx, view, firstTry, manifestFile) };
  const { pipeline } = firstTry.plan;
  const peeked = await store.readFirstRunRecord({ manifestFile, pipeline, runId, ...location });
  await preflightTargets(
    applyWriteTargets(
      ctx,
      options,
      preflightRun(manifestFile, runId, firstTry, simulated, peeked?.outputDir, {
        recordedHere: isRecordedOutputHere(peeked?.outputDir, undefined, ctx.env),
      }),
    ),
    ctx.cwd,
  );
  const state = await store.openRun({
    manifestFile,
    pipeline,
    runId,
    ...location,
    ...options.stateTuning,
    machine: machineName(ctx.env),
  });
  const peekedOutputDir = peeked?.outputDir;
  return { ...inputs, simulated, location, store, state, firstTry, peekedOutputDir, prepare };
}

/** Phase 3: the plan made again if the run started meanwhile, and who may run it. */
async function planUnderLock(
  opened: OpenedRun,
  connection: ServiceConnection,
  view: ApplyView,
): Promise<PlannedRun | Stopped> {
  const { ctx, saved, target, manifestFile, options, state } = opened;
  for (const warning of state.warnings) ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
  // The date read before the lock, unless the run started meanwhile (another runner's first apply).
  const runDate = saved?.date ?? runDateOf(state.runs);
  const { firstTry } = opened;
  opened.firstTry = undefined;
  const prepared =
    firstTry !== undefined && runDate === firstTry.date ? firstTry : await opened.prepare(runDate);
  if (!prepared.ok) return { outcome: reportInvalid(ctx, view, prepared, manifestFile) };
  const run = { pipeline: prepared.plan.pipeline, runId: options.runId, where: state.dir };
  // One account per run (#31.7): another key is refused before anything is sent.
  refuseOtherAccount(state.runs, connection.account, run);
  // One repository per run (#31.13): another repository's pipeline of the same name is refused.
  const project = await projectIdentity(manifestFile, options.project);
  refuseOtherProject(state.runs, project, run);
  if (saved !== undefined) await refuseChangedPlan(target, saved, { manifestFile, ...prepared });
  sharePlanStrings(state.jobs, prepared.plan.jobs);
  return { ...opened, prepared, project };
}

/**
 * A saved plan's RUNNER_OUTPUT (`root`, undefined when it was made without one) stands in for this
 * shell's, so apply's default download folder is the one the plan was made for; a different one in
 * this shell is named in a warning.
 */
function useSavedOutputRoot(ctx: CommandContext, root: string | undefined): CommandContext {
  const own = ctx.env[OUTPUT_ROOT_ENV];
  if (own !== undefined && resolve(ctx.cwd, own) !== root) {
    ctx.output.err(
      `${ctx.output.style.yellow('warning')} ${OUTPUT_ROOT_ENV} is not read: the saved plan fixes the download folder (${root === undefined ? 'made without it' : `made with ${root}`}).`,
    );
  }
  const env = { ...ctx.env };
  if (root === undefined) delete env[OUTPUT_ROOT_ENV];
  else env[OUTPUT_ROOT_ENV] = root;
  return { ...ctx, env };
}
