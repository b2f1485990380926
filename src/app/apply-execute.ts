import type { ExecutionSummary, ExitReason } from '../execute/events.js';
import { executePlan } from '../execute/executor.js';
import type { ExecuteDeps, ExecuteOptions } from '../execute/options.js';
import type { Plan } from '../plan/types.js';
import { thumbnailOnStore } from '../report/store-thumbnails.js';
import { thumbnailOnDownload } from '../report/thumbnails.js';
import { claimOutputDir, machineName, recordedOutputHost } from '../state/index.js';
import type { CommandContext } from './context.js';
import { watchBalance } from './balance-watch.js';
import { claimBucket } from './bucket-claim.js';
import type { Outcome } from './outcome.js';
import { isRecordedOutputHere, readExecuteOptions } from './apply-options.js';
import { countOutsideThisApply } from './outside-apply.js';
import { createResultFiles } from '../results/result-files.js';
import type { ServiceConnection } from './connection.js';
import { reportCommands } from './rerun-command.js';
import type { ApplyEffects, ApplyLogger, ApplySummaryFacts, ApplyView } from './apply-effects.js';
import type { AuthorizedRun, ExecutedRun } from './apply-phases.js';

/** The outcome of each way the executor stops (src/cli/exit-codes.ts gives each its exit code). */
const OUTCOMES: Record<ExitReason, Outcome> = {
  ok: 'done',
  failed: 'jobs-unfinished',
  credits: 'over-limit',
  budget: 'over-limit',
  auth: 'auth-failed',
  interrupted: 'interrupted',
};

/**
 * Apply's phase 5 (./apply.ts): the executor's options, the output folder claimed, and the plan executed
 * under the view's watch (progress, Ctrl-C / SIGTERM).
 */
export async function execute(
  run: AuthorizedRun,
  connection: ServiceConnection,
  effects: ApplyEffects,
  logger: ApplyLogger,
): Promise<ExecutedRun> {
  const { ctx, manifestFile, options, state, prepared, outputs, due } = run;
  const { plan } = prepared;
  const executeOptions: ExecuteOptions = {
    ...readExecuteOptions(ctx, { ...options, targeting: run.targeting }, executeInputs(run, connection)),
    ...(connection.account === undefined ? {} : { account: connection.account }),
    ...(run.project === undefined ? {} : { project: run.project }),
    ...(options.downloadOnly ? { downloadOnly: true } : {}),
    ...(due === undefined ? {} : { rejections: due.rejections }),
  };
  await state.lock.verify();
  // Its warning, if any, was given when the folder or the bucket prefix was checked (above).
  if (outputs.bucket === undefined) await claimOutputDir(outputs.dir, outputs.owner);
  else await claimBucket(outputs.bucket, outputs.owner, outputs.runStart);
  const startedAt = effects.clock.now();
  const hints = nextStepHints(run);
  // --download-only creates nothing: its balance cannot fall, and it never reads one (#32.3).
  const coordination = state.coordination;
  const balance = options.downloadOnly
    ? undefined
    : await watchBalance(
        connection.client,
        state.jobs,
        coordination === undefined ? undefined : () => coordination.othersSpent(),
      );
  const { summary, signal } = await executeWatched(ctx, effects.view, plan, executeOptions, hints.again, {
    client: connection.client,
    // The run's state whole (journal, jobs, lock, snapshots, uploads, coordination, late answers): a
    // shared run's (PostgreSQL, joined above) has the executor run only the jobs this process claims.
    run: state,
    clock: effects.clock,
    // A lost create never adopts a job another run of the pipeline holds (issue #24.8).
    readOtherRuns: () =>
      run.store.otherRunsJobs({
        manifestFile,
        pipeline: plan.pipeline,
        runId: options.runId,
        ...run.location,
      }),
    // Each image's thumbnail made as it is stored: in the output folder, or read back from the
    // bucket and put beside the results there (sharp needs a file or the bytes).
    ...(outputs.bucket === undefined
      ? { afterDownload: thumbnailOnDownload(outputs.dir) }
      : {
          afterDownload: thumbnailOnStore(outputs.bucket),
          results: createResultFiles(outputs.bucket, outputs.recorded),
        }),
    machine: state.coordination?.machine ?? machineName(ctx.env),
    onEvent: (event) => logger.info({ event }, event.type),
  });
  logger.info({ summary: { counts: summary.counts, exitReason: summary.exitReason } }, 'apply finished');
  return { ...run, summary, signal, executeOptions, hints, startedAt, balance };
}

/** What of the run the executor's options are read from, besides apply's flags. */
function executeInputs(run: AuthorizedRun, connection: ServiceConnection) {
  const { ctx, options, state, prepared, outputs } = run;
  const { plan, loaded } = prepared;
  return {
    runId: options.runId,
    timeScale: connection.timeScale,
    manifestDir: loaded.dir,
    manifestOutput: loaded.manifest.output,
    pipeline: plan.pipeline,
    recordedOutputDir: outputs.recorded,
    recordedHere: isRecordedOutputHere(outputs.recorded, recordedOutputHost(state.runs), ctx.env),
    runJobs: plan.jobs.length + prepared.leftOut.length,
    ...(loaded.manifest.retry === undefined ? {} : { retry: loaded.manifest.retry }),
    ...(options.maxCredits === undefined ? {} : { maxCredits: options.maxCredits }),
  };
}

/** The commands the summary names for what to do next, with the flags that locate this run. */
function nextStepHints(run: AuthorizedRun): ApplySummaryFacts['hints'] {
  const { saved, target, manifestFile, options, simulated, rerun } = run;
  return {
    // A saved plan resumes as itself (it carries every option); the rest as the manifest with its flags.
    // Its state database is not in the plan: repeated as given (#31.1).
    again:
      saved === undefined
        ? rerun('apply', manifestFile)
        : rerun('apply', target, { state: options.repeat.state }),
    resend: rerun('apply', manifestFile, options.repeat, ['--resend-uncertain']),
    // A simulated apply's state is in a temporary folder: status finds it only with its --state-dir.
    status: rerun('status', manifestFile, {
      ...options.repeat,
      ...(simulated && options.state.stateDir === undefined ? { stateDir: run.location.stateDir } : {}),
    }),
  };
}

/**
 * Runs the executor watched by the view (progress, Ctrl-C / SIGTERM); `resume` is the command a second
 * signal tells the user to run. Also says which signal stopped the run, if any.
 */
async function executeWatched(
  ctx: CommandContext,
  view: ApplyView,
  plan: Plan,
  options: ExecuteOptions,
  resume: string,
  deps: Omit<ExecuteDeps, 'signal'>,
): Promise<{ summary: ExecutionSummary; signal: NodeJS.Signals | undefined }> {
  const watch = await view.watch(
    ctx,
    plan.jobs.map((job) => job.id),
    options.concurrency ?? 4,
    resume,
  );
  try {
    const summary = await executePlan(
      plan,
      {
        ...deps,
        signal: watch.signal,
        onEvent: (event) => {
          deps.onEvent(event);
          watch.onEvent(event);
        },
      },
      options,
    );
    return { summary, signal: watch.received() };
  } finally {
    watch.finish();
  }
}

/** Phase 6: what the run leaves for people and CI, and the outcome. */
export async function finish(run: ExecutedRun, view: ApplyView, logger: ApplyLogger): Promise<Outcome> {
  const { ctx, manifestFile, options, state, prepared, summary, simulated, location } = run;
  // Loaded only now: the report code adds nothing to the start-up before the lock and the first create.
  const { reportApplyOutputs } = await import('./apply-outputs.js');
  const written = await reportApplyOutputs(ctx, options, reportInputs(run));
  const temporaryState =
    simulated && options.state.stateDir === undefined && options.state.stateUrl === undefined;
  const outside = countOutsideThisApply(state.snapshots.finalState() ?? state.jobs, prepared.leftOut);
  ctx.output.out(
    options.json
      ? JSON.stringify(
          { schemaVersion: 1, ...summary, ...(outside === undefined ? {} : { outsideThisApply: outside }) },
          null,
          2,
        )
      : view.summary(
          summary,
          {
            outputDir: run.executeOptions.outputDir,
            stateDir: state.dir,
            runId: options.runId,
            hints: run.hints,
            temporaryState,
            ...(outside === undefined ? {} : { outside }),
            ...(temporaryState && location.stateDir !== undefined
              ? { temporaryStateRoot: location.stateDir }
              : {}),
          },
          ctx.output.style,
        ),
  );
  ctx.output[written.failed || options.json ? 'err' : 'out'](written.note);
  const drop = await run.balance?.check(summary.creditsSpentTotal);
  if (drop !== undefined) {
    logger.info({ warning: drop }, 'balance');
    ctx.output.err(`${ctx.output.style.yellow('warning')} ${drop}`);
  }
  // A simulated run's state is its own temporary folder: the runs that cost money are elsewhere.
  if (!simulated) {
    const { warnOfUnfinishedRuns } = await import('./warn-unfinished-runs.js');
    const address = { manifestFile, pipeline: prepared.plan.pipeline, runId: options.runId, ...location };
    await warnOfUnfinishedRuns(ctx, options.repeat, run.store, address, view.unfinishedRuns);
  }
  // Interrupted by SIGTERM (a CI runner cancelling the job) exits 143 as shells report it, not 130.
  if (summary.exitReason === 'interrupted' && run.signal === 'SIGTERM') return 'terminated';
  const outcome = OUTCOMES[summary.exitReason];
  // A result file that could not be written is a failure of the run (docs/cli-reference.md "Exit codes").
  return written.failed && outcome === 'done' ? 'outputs-unwritten' : outcome;
}

/** What the results index, report and JUnit are written from. */
function reportInputs(run: ExecutedRun) {
  const { ctx, manifestFile, options, state, prepared, outputs, summary, hints } = run;
  return {
    plan: prepared.plan,
    loaded: prepared.loaded,
    runId: options.runId,
    // The executor's live state, as a replay of the journal would give it (without reading it again).
    state: state.snapshots.finalState() ?? state.jobs,
    summary,
    startedAt: run.startedAt,
    outputDir: outputs.dir,
    recordedOutputDir: outputs.recorded,
    ...(outputs.bucket === undefined ? {} : { bucket: outputs.bucket }),
    // --replace-from runs the rejected jobs; its report shows the whole run, old results beside new.
    ...(prepared.runJobs === undefined ? {} : { reportJobs: prepared.runJobs }),
    // The advice `runner status` gives, with the same commands (#33.11).
    adviceCommands: {
      resend: hints.resend,
      retryFailed: run.rerun('apply', manifestFile, options.repeat, ['--retry-failed']),
    },
    // What the report page tells its reviewer to run next, with this run's flags (#33.3).
    runCommands: reportCommands(manifestFile, options.repeat, ctx.global),
  };
}
