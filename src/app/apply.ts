import { resolve } from 'node:path';
import type { Clock } from '../clock.js';
import { RunnerError, UsageError } from '../errors.js';
import type { ExecutionEvent, ExecutionSummary, ExitReason } from '../execute/events.js';
import { executePlan } from '../execute/executor.js';
import type { ExecuteDeps, ExecuteOptions } from '../execute/options.js';
import type { CostReportView } from '../plan/job-table.js';
import type { Plan } from '../plan/types.js';
import { renderReportText } from '../plan/render-report.js';
import { thumbnailOnStore } from '../report/store-thumbnails.js';
import { thumbnailOnDownload } from '../report/thumbnails.js';
import { stateStoreFor } from '../state/select-state-store.js';
import { sharePlanStrings } from '../state/share-plan-strings.js';
import { machineName } from '../state/machine-name.js';
import { planIdentity } from '../plan/plan-identity.js';
import { readLockOptions } from './lock-options.js';
import type { CommandContext } from './context.js';
import { watchBalance } from './balance-watch.js';
import { checkCost, DEFAULT_MAX_ATTEMPTS } from './cost-check.js';
import type { Outcome } from './outcome.js';
import {
  applyWriteTargets,
  isRecordedOutputHere,
  readExecuteOptions,
  stateLocation,
  type ApplyOptions,
} from './apply-options.js';
import { claimOutputDir } from '../state/output-claim.js';
import { createResultFiles } from '../results/result-files.js';
import { checkRunOutputDir } from './check-output-dir.js';
import { recordedOutputDir, recordedOutputHost } from '../state/run-output-dir.js';
import { preflightTargets } from './preflight.js';
import { preparePlan, toPrepareOptions, type Prepared, type PrepareOptions } from './prepare-plan.js';
import { peekRunDate, runDateOf } from './run-date.js';
import type { ValidationIssue } from '../manifest/types.js';
import type { ServiceClientOptions } from '../service/client.js';
import type { ClientEvent } from '../service/service-client.js';
import type { ServiceConnection } from './connection.js';
import { refuseOtherAccount } from './run-account.js';
import { projectIdentity, refuseOtherProject } from './run-project.js';
import type { Style } from '../text-style.js';
import type { UnfinishedRunsRenderer } from './warn-unfinished-runs.js';
import { readSavedPlanIfAny, refuseChangedPlan, refuseStalePlan, savedPlanInputs } from './saved-plan-io.js';
import { reportCommands, rerunCommand, type RepeatedFlags, type RerunCommandName } from './rerun-command.js';
import { OUTPUT_ROOT_ENV } from './output-root.js';
import { replacementsStillDue } from '../plan/saved-plan.js';
import { dueReplacements, readReplaceFrom } from './replace-from-options.js';
import { addTargetingToReport, describeLeftOut } from '../plan/targeting-report.js';

/**
 * What apply needs from outside, passed in by the CLI (src/cli/commands/apply-command.ts): the service,
 * the log, the clock, and how the terminal shows the run.
 */
export interface ApplyEffects {
  /** Opens the service: the real one, or the embedded simulator with `--simulate` (src/cli/connect.ts). */
  connect: (
    ctx: CommandContext,
    onEvent: (event: ClientEvent) => void,
    limits: Pick<ServiceClientOptions, 'maxDownloadBytes'>,
  ) => Promise<ServiceConnection>;
  /** The run's log, `--log-file` (src/cli/logger.ts). */
  createLogger: (logFile: string | undefined) => ApplyLogger;
  clock: Clock;
  view: ApplyView;
}

/** The log apply writes (pino's, src/cli/logger.ts). */
export interface ApplyLogger {
  info(object: object, message: string): void;
  flush(): void;
}

/** How the terminal shows an apply (src/cli/render/). */
export interface ApplyView {
  /** The manifest's problems, for stderr. */
  issues(issues: readonly ValidationIssue[], manifestFile: string, style: Style): string;
  /**
   * Shows the executor's progress and turns Ctrl-C / SIGTERM into its abort signal while it runs;
   * `resume` is the command a second signal tells the user to run. May load what it draws with first.
   */
  watch(
    ctx: CommandContext,
    jobIds: readonly string[],
    concurrency: number,
    resume: string,
  ): ExecutionWatch | Promise<ExecutionWatch>;
  /** The closing report: counts, credits, where results are, what to do next. */
  summary(summary: ExecutionSummary, facts: ApplySummaryFacts, style: Style): string;
  /** Warnings for other runs of the pipeline left unfinished. */
  unfinishedRuns: UnfinishedRunsRenderer;
}

/** An execution being watched: see {@link ApplyView.watch}. */
export interface ExecutionWatch {
  signal: AbortSignal;
  onEvent(event: ExecutionEvent): void;
  /** The signal that stopped the run, if any. */
  received(): NodeJS.Signals | undefined;
  /** Stops listening for signals and closes the progress view. */
  finish(): void;
}

/** What the closing report says besides the counts. */
export interface ApplySummaryFacts {
  outputDir: string | undefined;
  stateDir: string;
  runId: string;
  /** The commands the next steps name, with the flags that locate this run (./rerun-command.ts). */
  hints: { again: string; resend: string; status: string };
  /** With --simulate the state lives only as long as the in-process simulator. */
  temporaryState?: boolean;
  /** The temporary state root of a simulated apply (its `--state-dir`). */
  temporaryStateRoot?: string;
}

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
 * `runner apply FILE|PLAN`: plan first (invalid input exits 2, over budget or credit exits 3, before any
 * job is created), confirm on a terminal, then run the plan with a journaled, resumable executor, in
 * this order:
 * 1. read a saved plan, if given one (it fixes the manifest, run, targeting and vars), and check the
 *    paths the flags name (preflight: nothing is sent before they are known writable);
 * 2. connect, and plan once without the lock (to know the pipeline, the output folder and the date);
 * 3. lock the run's state (openStoredRun), and plan again under the lock if the run started meanwhile;
 * 4. check the output folder, then the cost against the budget, the credit and `--max-credits`;
 * 5. confirm through the injected prompt (`ctx.confirm`; CI and `--yes` only say what starts);
 * 6. claim the output folder and execute, every effect passed in (executePlan);
 * 7. write the results index, report, JUnit and step summary, print the summary, and warn of other
 *    runs of the pipeline left unfinished.
 * Returns what happened (docs/cli-reference.md "Exit codes" gives each its code, through src/cli/exit-codes.ts).
 */
export async function runApply(
  ctx: CommandContext,
  target: string,
  given: ApplyOptions,
  effects: ApplyEffects,
): Promise<Outcome> {
  const { connect, createLogger, clock, view } = effects;
  // `apply plan.json`: a saved plan (told by its content) fixes the manifest, run, targeting and vars:
  // its options take the place of those of the command line, and are read from here on the same way.
  const saved = await readSavedPlanIfAny(target);
  const { manifestFile, options, outputRoot } =
    saved === undefined
      ? { manifestFile: target, options: given, outputRoot: undefined }
      : savedPlanInputs(target, saved, given, ctx.cwd);
  if (saved !== undefined) ctx = useSavedOutputRoot(ctx, outputRoot);
  if (saved !== undefined) await refuseChangedPlan(target, saved, { manifestFile });
  const { runId } = options;
  const downloadOnly = readDownloadOnly(options);
  const replaceFrom = await readReplaceFrom(options, runId);
  if (replaceFrom.given && !replaceFrom.ok) return reportInvalid(ctx, view, replaceFrom, replaceFrom.file);
  if (replaceFrom.given && replaceFrom.rejected === 0) {
    ctx.output.err('The decisions reject no job: nothing to re-generate. No job was created.');
    return 'done';
  }
  const rerun = (
    command: RerunCommandName,
    file: string,
    flags: RepeatedFlags = options.repeat,
    extra: string[] = [],
  ) => rerunCommand(command, file, flags, ctx.global, extra);
  await preflightTargets(applyWriteTargets(ctx, options), ctx.cwd);
  const logger = createLogger(ctx.global.logFile);
  const connection = await connect(
    ctx,
    (event) => logger.info({ event }, 'client'),
    options.maxDownloadBytes === undefined ? {} : { maxDownloadBytes: options.maxDownloadBytes },
  );
  try {
    const prepare = (date: PrepareOptions['date']) =>
      preparePlan(
        ctx,
        {
          ...toPrepareOptions(manifestFile, options, date),
          ...(replaceFrom.given ? { replaceFrom: replaceFrom.prepare } : {}),
        },
        () => connection.client.listModels(),
      );
    const simulated = connection.simulator !== undefined;
    const location = await stateLocation(options.state, simulated);
    // The one door to the run's state, and to the other runs' (issue 34.1): never `.runner/` past it.
    const store = await stateStoreFor(location);
    // `{{ date }}` is the date the run started: a run resumed on a later day is planned with it, once.
    const startDate = (pipeline: string) => peekRunDate({ manifestFile, pipeline, runId, ...location });
    // `let`: released before a second plan is made (below), so a run holds one plan, not two.
    let firstTry: Prepared | undefined = await prepare(saved?.date ?? startDate);
    if (!firstTry.ok) return reportInvalid(ctx, view, firstTry, manifestFile);
    const peeked = await store.readFirstRunRecord({
      manifestFile,
      pipeline: firstTry.plan.pipeline,
      runId,
      ...location,
    });
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
      pipeline: firstTry.plan.pipeline,
      runId,
      ...location,
      ...readSnapshotEvery(ctx.env),
      ...readLockOptions(ctx.env),
      ...readLeaseTtl(ctx.env),
      machine: machineName(ctx.env),
    });
    // Until the executor starts, a refusal (invalid input, over the budget, declined) leaves no run.
    let executing = false;
    /** A bucket output's store: its connections end with the command. */
    let bucket: { close?(): void } | undefined;
    try {
      for (const warning of state.warnings)
        ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
      // The date read before the lock, unless the run started meanwhile (another runner's first apply).
      const runDate = saved?.date ?? runDateOf(state.runs);
      let prepared: Prepared;
      if (runDate === firstTry.date) prepared = firstTry;
      else {
        firstTry = undefined;
        prepared = await prepare(runDate);
      }
      if (!prepared.ok) return reportInvalid(ctx, view, prepared, manifestFile);
      // One account per run (#31.7): another key is refused before anything is sent.
      refuseOtherAccount(state.runs, connection.account, {
        pipeline: prepared.plan.pipeline,
        runId,
        where: state.dir,
      });
      // One repository per run (#31.13): another repository's pipeline of the same name is refused.
      const project = await projectIdentity(manifestFile, options.project);
      refuseOtherProject(state.runs, project, { pipeline: prepared.plan.pipeline, runId, where: state.dir });
      if (saved !== undefined) await refuseChangedPlan(target, saved, { manifestFile, ...prepared });
      const { plan, loaded } = prepared;
      sharePlanStrings(state.jobs, plan.jobs);
      const outputs = await checkRunOutputDir(ctx, options.output, {
        ...preflightRun(manifestFile, runId, prepared, simulated, recordedOutputDir(state.runs), {
          recordedHere: isRecordedOutputHere(
            recordedOutputDir(state.runs),
            recordedOutputHost(state.runs),
            ctx.env,
          ),
        }),
        stateDir: state.dir,
        store,
        location,
        preflighted: peeked?.outputDir,
      });
      bucket = outputs.bucket;
      const { maxCredits } = options;
      let { targeting } = options;
      // A saved plan's --replace is done once: applying the same plan again must not pay again.
      if (saved !== undefined) {
        const replace = replacementsStillDue(saved, (id) => state.jobs.get(id)?.attempts.length ?? 0);
        targeting = { ...targeting, replace };
      }
      // --replace-from: a rejected job already re-generated (a later attempt exists) is not paid again.
      const due = dueReplacements(prepared.rejections, state.jobs);
      if (due !== undefined) {
        if (due.issues.length > 0)
          return reportInvalid(ctx, view, { ok: false, issues: due.issues }, manifestFile);
        for (const note of due.notes) ctx.output.err(note);
        targeting = { ...targeting, replace: due.replace };
      }
      // Several machines on one run (PostgreSQL): one running another plan, or the same plan with
      // another cap, replacements or re-sends (#31.8), refuses this one here.
      const caps = [maxCredits, plan.budget].filter((value): value is number => value !== undefined);
      // Runs of one account on this state share its open-job slots and its 429 pauses (#31.5).
      await state.coordination?.join(
        planIdentity(plan, {
          maxCredits: caps.length === 0 ? undefined : Math.min(...caps),
          replace: targeting.replace ?? [],
          retryFailed: options.retryFailed,
          resendUncertain: options.resendUncertain,
        }),
        connection.account,
      );
      const sharedPause = state.coordination?.sharedRateLimit();
      if (sharedPause !== undefined) connection.client.shareRateLimit?.(sharedPause);
      // --download-only creates and pays nothing: no cost check, nothing to confirm.
      if (!downloadOnly) {
        const costed = await checkCost({
          plan,
          catalog: prepared.catalog,
          maxAttempts: loaded.manifest.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
          client: connection.client,
          previousJobs: state.jobs,
          ...(targeting.replace === undefined ? {} : { replace: targeting.replace }),
          retryFailed: options.retryFailed,
          resendUncertain: options.resendUncertain,
          ...(maxCredits === undefined ? {} : { maxCredits }),
        });
        const report = addTargetingToReport(costed, targeting, prepared.leftOut);
        if (saved !== undefined) {
          const settled = refuseStalePlan(target, saved, {
            jobs: report.jobList,
            stateDir: state.dir,
            planAgain: rerun('plan', manifestFile, options.repeat, ['--out-plan', target]),
          });
          if (settled !== undefined) ctx.output.err(settled);
        }
        const leftOut = describeLeftOut(report);
        if (leftOut !== undefined && (!ctx.canPrompt || options.yes)) ctx.output.err(leftOut);
        refuseOverspending(ctx, report, manifestFile);
        // Declining is not success (Terraform exits 1 too): a script must not read "nothing applied" as done.
        if (!(await confirmApply(ctx, report, manifestFile, options.yes))) return 'declined';
      }

      const executeOptions = readExecuteOptions(
        ctx,
        { ...options, targeting },
        {
          runId,
          timeScale: connection.timeScale,
          manifestDir: loaded.dir,
          manifestOutput: loaded.manifest.output,
          pipeline: plan.pipeline,
          recordedOutputDir: outputs.recorded,
          recordedHere: isRecordedOutputHere(outputs.recorded, recordedOutputHost(state.runs), ctx.env),
          runJobs: plan.jobs.length + prepared.leftOut.length,
          ...(loaded.manifest.retry === undefined ? {} : { retry: loaded.manifest.retry }),
          ...(maxCredits === undefined ? {} : { maxCredits }),
        },
      );
      if (connection.account !== undefined) executeOptions.account = connection.account;
      if (project !== undefined) executeOptions.project = project;
      if (downloadOnly) executeOptions.downloadOnly = true;
      if (due !== undefined) executeOptions.rejections = due.rejections;
      await state.lock.verify();
      // Its warning, if any, was given when the folder was checked (above). A bucket has no claim
      // file: the run's lease fences its writers (see checkRunOutputDir).
      if (outputs.bucket === undefined) await claimOutputDir(outputs.dir, outputs.owner);
      const startedAt = clock.now();
      const hints = {
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
          ...(simulated && options.state.stateDir === undefined ? { stateDir: location.stateDir } : {}),
        }),
      };
      // --download-only creates nothing: its balance cannot fall, and it never reads one (#32.3).
      const balance = downloadOnly ? undefined : await watchBalance(connection.client, state.jobs);
      executing = true;
      const { summary, signal } = await executeWatched(ctx, view, plan, executeOptions, hints.again, {
        client: connection.client,
        journal: state.journal,
        lock: state.lock,
        state: state.jobs,
        clock,
        uploadCache: state.uploadCache,
        snapshots: state.snapshots,
        ...(state.coordination === undefined ? {} : { coordination: state.coordination }),
        // A lost create never adopts a job another run of the pipeline holds (issue #24.8).
        readOtherRuns: () =>
          store.otherRunsJobs({ manifestFile, pipeline: plan.pipeline, runId, ...location }),
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
      // The executor's live state, as a replay of the journal would give it (without reading it again).
      const finalState = state.snapshots.finalState() ?? state.jobs;
      const run = {
        plan,
        loaded,
        runId,
        state: finalState,
        summary,
        startedAt,
        outputDir: outputs.dir,
        recordedOutputDir: outputs.recorded,
        ...(outputs.bucket === undefined ? {} : { bucket: outputs.bucket }),
        // --replace-from runs the rejected jobs; its report shows the whole run, old results beside new.
        ...(prepared.runJobs === undefined ? {} : { reportJobs: prepared.runJobs }),
        // The advice `runner status` gives, with the same commands (#33.11).
        adviceCommands: {
          resend: hints.resend,
          retryFailed: rerun('apply', manifestFile, options.repeat, ['--retry-failed']),
        },
        // What the report page tells its reviewer to run next, with this run's flags (#33.3).
        runCommands: reportCommands(manifestFile, options.repeat, ctx.global),
      };
      // Loaded only now: the report code adds nothing to the start-up before the lock and the first create.
      const { reportApplyOutputs } = await import('./apply-outputs.js');
      const written = await reportApplyOutputs(ctx, options, run);
      const stateWhere = options.state;
      const temporaryState =
        simulated && stateWhere.stateDir === undefined && stateWhere.stateUrl === undefined;
      ctx.output.out(
        options.json
          ? JSON.stringify({ schemaVersion: 1, ...summary }, null, 2)
          : view.summary(
              summary,
              {
                outputDir: executeOptions.outputDir,
                stateDir: state.dir,
                runId,
                hints,
                temporaryState,
                ...(temporaryState && location.stateDir !== undefined
                  ? { temporaryStateRoot: location.stateDir }
                  : {}),
              },
              ctx.output.style,
            ),
      );
      ctx.output[written.failed || options.json ? 'err' : 'out'](written.note);
      const drop = await balance?.check(summary.creditsSpentTotal);
      if (drop !== undefined) {
        logger.info({ warning: drop }, 'balance');
        ctx.output.err(`${ctx.output.style.yellow('warning')} ${drop}`);
      }
      // A simulated run's state is its own temporary folder: the runs that cost money are elsewhere.
      if (!simulated) {
        const { warnOfUnfinishedRuns } = await import('./warn-unfinished-runs.js');
        await warnOfUnfinishedRuns(
          ctx,
          options.repeat,
          store,
          { manifestFile, pipeline: plan.pipeline, runId, ...location },
          view.unfinishedRuns,
        );
      }
      // Interrupted by SIGTERM (a CI runner cancelling the job) exits 143 as shells report it, not 130.
      if (summary.exitReason === 'interrupted' && signal === 'SIGTERM') return 'terminated';
      const outcome = OUTCOMES[summary.exitReason];
      // A result file that could not be written is a failure of the run (docs/cli-reference.md "Exit codes").
      return written.failed && outcome === 'done' ? 'outputs-unwritten' : outcome;
    } finally {
      bucket?.close?.();
      await state.close({ discardIfUnused: !executing });
    }
  } finally {
    await connection.close();
    logger.flush();
  }
}

/**
 * `--download-only`: fetch the results owed by done jobs and nothing else (#20.8). Flags that ask for
 * creates, or for no downloads, contradict it: a usage error before anything is read.
 */
function readDownloadOnly(options: ApplyOptions): boolean {
  if (!options.downloadOnly) return false;
  const contradicting = [
    !options.download ? '--no-download' : undefined,
    options.retryFailed ? '--retry-failed' : undefined,
    options.resendUncertain ? '--resend-uncertain' : undefined,
    options.targeting.replace.length > 0 ? '--replace' : undefined,
  ].filter((flag) => flag !== undefined);
  if (contradicting.length > 0) {
    throw new UsageError(
      `--download-only creates nothing, so it cannot be combined with ${contradicting.join(', ')}.`,
    );
  }
  return true;
}

/**
 * Over the budget, the available credit or --max-credits: exit 3 before any job exists. The verdict is
 * the one `runner plan` gives for the same state and flags (./cost-check.ts).
 */
function refuseOverspending(ctx: CommandContext, report: CostReportView, manifestFile: string): void {
  if (report.verdict.status !== 'fits') {
    ctx.output.err(renderReportText(report, { color: ctx.output.color, width: ctx.output.width }));
    const overBudget = report.verdict.status === 'over-budget';
    throw new RunnerError(
      overBudget ? 'OVER_BUDGET' : 'INSUFFICIENT_CREDITS',
      `Not applying ${manifestFile}: ${report.verdict.message}. No job was created.`,
      { hint: overBudget ? overBudgetHint(report) : 'Top up before retrying.' },
    );
  }
}

/**
 * What to change when over a cap: the cap that binds. `--max-credits` can only lower the manifest's
 * `budget` (the lower one applies), so raising it past the budget would do nothing.
 */
function overBudgetHint(report: CostReportView): string {
  const fewer = 'or run fewer jobs (--only / --exclude, or trim the matrix).';
  const { budget, maxCredits } = report;
  if (maxCredits !== undefined && (budget === undefined || maxCredits < budget))
    return `Pass a higher --max-credits${budget === undefined ? '' : ` (up to the manifest's budget of ${budget})`}, ${fewer}`;
  return `Raise \`budget\` in the manifest, ${fewer}`;
}

/** On a terminal, shows the plan and asks (unless --yes); without one (CI), says what it starts. */
async function confirmApply(
  ctx: CommandContext,
  report: CostReportView,
  manifestFile: string,
  yes: boolean,
): Promise<boolean> {
  if (!ctx.canPrompt || yes) {
    ctx.output.err(
      `Applying ${manifestFile}: ${report.jobs.toRun} of ${report.jobs.total} jobs to run; ${report.verdict.message}.`,
    );
    return true;
  }
  ctx.output.err(renderReportText(report, { color: ctx.output.color, width: ctx.output.width }));
  const confirmed = await ctx.confirm(
    `Apply ${report.jobs.toRun} jobs for up to ${report.credits.needed} credits?`,
  );
  if (!confirmed) ctx.output.err('Nothing was applied.');
  return confirmed;
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

function preflightRun(
  manifestFile: string,
  runId: string,
  prepared: Extract<Prepared, { ok: true }>,
  simulated: boolean,
  recordedOutputDir: string | undefined,
  here: { recordedHere: boolean },
) {
  const { loaded, plan } = prepared;
  return {
    manifestFile,
    pipeline: plan.pipeline,
    runId,
    manifestDir: loaded.dir,
    manifestOutput: loaded.manifest.output,
    manifestReport: loaded.manifest.report,
    recordedOutputDir,
    recordedHere: here.recordedHere,
    simulated,
  };
}

function reportInvalid(
  ctx: CommandContext,
  view: ApplyView,
  prepared: Extract<Prepared, { ok: false }>,
  manifestFile: string,
) {
  ctx.output.err(view.issues(prepared.issues, manifestFile, ctx.output.style));
  ctx.output.err('No job was created.');
  return 'invalid-input' as const;
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

/**
 * `RUNNER_SNAPSHOT_EVERY=N`: fewest journal records between two state snapshots during a run
 * (docs/state.md "Run state"); tests set a few to take snapshots all through a short run.
 */
function readSnapshotEvery(env: Readonly<Record<string, string | undefined>>): { snapshotEvery?: number } {
  const text = env.RUNNER_SNAPSHOT_EVERY;
  if (text === undefined || text === '') return {};
  const every = Number(text);
  if (!Number.isSafeInteger(every) || every < 1) {
    throw new UsageError(
      `RUNNER_SNAPSHOT_EVERY must be a whole number of records, at least 1; received ${JSON.stringify(text)}.`,
    );
  }
  return { snapshotEvery: every };
}

/**
 * `RUNNER_LEASE_TTL_MS=N`: how long the PostgreSQL lease lasts without a heartbeat (docs/state.md "Where
 * state lives"); tests set about a second to see a lease expire.
 */
function readLeaseTtl(env: Readonly<Record<string, string | undefined>>): { leaseTtlMs?: number } {
  const text = env.RUNNER_LEASE_TTL_MS;
  if (text === undefined || text === '') return {};
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms < 100) {
    throw new UsageError(
      `RUNNER_LEASE_TTL_MS must be a whole number of milliseconds, at least 100; received ${JSON.stringify(text)}.`,
    );
  }
  return { leaseTtlMs: ms };
}
