import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { systemClock } from '../../clock.js';
import { ExitCode, RunnerError, UsageError } from '../../errors.js';
import type { ExecutionSummary, ExitReason } from '../../execute/events.js';
import { executePlan } from '../../execute/executor.js';
import { DEFAULT_RETRY_POLICY } from '../../execute/failure-policy.js';
import type { ExecuteOptions } from '../../execute/options.js';
import type { RetryOverrides } from '../../manifest/types.js';
import { renderReportText } from '../../plan/render-report.js';
import { openRunState } from '../../state/open-run-state.js';
import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { checkCost, DEFAULT_MAX_ATTEMPTS } from '../cost-check.js';
import { createLogger } from '../logger.js';
import { parseNumberOption, parseStringOption } from '../parse-options.js';
import { preparePlan, readPrepareOptions, todayUtc, type Prepared } from '../prepare-plan.js';
import { handleInterrupts } from '../interrupts.js';
import { renderApplySummary } from '../render/apply-summary.js';
import { renderIssues } from '../render/issues.js';
import { ProgressModel } from '../render/progress-model.js';
import { createProgressReporter } from '../render/progress-view.js';
import { readRunId, readStateDir } from '../run-options.js';

const EXIT_CODES: Record<ExitReason, number> = {
  ok: ExitCode.Success,
  failed: ExitCode.Failure,
  credits: ExitCode.Credits,
  budget: ExitCode.Credits,
  auth: ExitCode.Authentication,
  interrupted: ExitCode.Interrupted,
};

/**
 * `runner apply FILE`: plan first (invalid input exits 2, over budget or credit exits 3, before any job
 * is created), confirm on a terminal, then run the plan with a journaled, resumable executor.
 */
export async function runApply(ctx: CommandContext, args: string[], options: Record<string, unknown>) {
  const [manifestFile = ''] = args;
  const runId = readRunId(options);
  const logger = createLogger(ctx.global.logFile);
  const connection = await connect(ctx, (event) => logger.info({ event }, 'client'));
  try {
    const prepare = (date: string) =>
      preparePlan(ctx, readPrepareOptions(manifestFile, options, date), () => connection.client.listModels());
    let prepared = await prepare(todayUtc());
    if (!prepared.ok) return reportInvalid(ctx, prepared, manifestFile);

    const state = await openRunState({
      manifestFile,
      pipeline: prepared.plan.pipeline,
      runId,
      ...(await stateLocation(options, connection.simulator !== undefined)),
    });
    try {
      for (const warning of state.warnings)
        ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
      // `{{ date }}` is the date the run started: resuming tomorrow must not turn every job into a new one.
      const firstRun = state.runs[0];
      if (firstRun !== undefined && todayUtc(new Date(firstRun.at)) !== todayUtc()) {
        prepared = await prepare(todayUtc(new Date(firstRun.at)));
        if (!prepared.ok) return reportInvalid(ctx, prepared, manifestFile);
      }
      const { plan, loaded, catalog } = prepared;
      const retryFailed = options.retryFailed === true;
      const report = await checkCost({
        plan,
        catalog,
        maxAttempts: loaded.manifest.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        client: connection.client,
        previousJobs: state.jobs,
        retryFailed,
      });
      const maxCredits = parseNumberOption('max-credits', options.maxCredits, { min: 0 });
      const textReport = () => renderReportText(report, { color: ctx.output.color, width: 100 });
      if (report.verdict.status !== 'fits') {
        ctx.output.err(textReport());
        throw new RunnerError(
          report.verdict.status === 'over-budget' ? 'OVER_BUDGET' : 'INSUFFICIENT_CREDITS',
          `Not applying ${manifestFile}: ${report.verdict.message}. No job was created.`,
          {
            hint:
              report.verdict.status === 'over-budget'
                ? 'Raise `budget` or trim the matrix.'
                : 'Top up before retrying.',
          },
        );
      }
      if (maxCredits !== undefined && report.credits.needed > maxCredits) {
        throw new RunnerError(
          'OVER_BUDGET',
          `Not applying ${manifestFile}: it needs ${report.credits.needed} credits, more than --max-credits ${maxCredits}. No job was created.`,
        );
      }
      if (ctx.canPrompt && options.yes !== true) {
        ctx.output.err(textReport());
        if (
          !(await ctx.confirm(`Apply ${report.jobs.toRun} jobs for up to ${report.credits.needed} credits?`))
        ) {
          ctx.output.err('Nothing was applied.');
          return ExitCode.Success;
        }
      } else {
        ctx.output.err(
          `Applying ${manifestFile}: ${report.jobs.toRun} of ${report.jobs.total} jobs to run; ${report.verdict.message}.`,
        );
      }

      const executeOptions = readExecuteOptions(ctx, options, {
        runId,
        timeScale: connection.timeScale,
        manifestDir: loaded.dir,
        manifestOutput: loaded.manifest.output,
        pipeline: plan.pipeline,
        ...(loaded.manifest.retry === undefined ? {} : { retry: loaded.manifest.retry }),
        ...(maxCredits === undefined ? {} : { maxCredits }),
      });
      const concurrency = executeOptions.concurrency ?? 4;
      const progress = createProgressReporter(
        ctx.output,
        new ProgressModel(
          plan.jobs.map((job) => job.id),
          concurrency,
          Date.now,
        ),
      );
      const interrupts = handleInterrupts(ctx.output);
      let summary: ExecutionSummary;
      try {
        summary = await executePlan(
          plan,
          {
            client: connection.client,
            journal: state.journal,
            state: state.jobs,
            clock: systemClock,
            uploadCache: state.uploadCache,
            signal: interrupts.signal,
            onEvent: (event) => {
              logger.info({ event }, event.type);
              progress.onEvent(event);
            },
          },
          executeOptions,
        );
      } finally {
        interrupts.dispose();
        progress.finish();
      }
      logger.info({ summary: { counts: summary.counts, exitReason: summary.exitReason } }, 'apply finished');
      if (options.json === true) ctx.output.out(JSON.stringify(summary, null, 2));
      else {
        ctx.output.out(
          renderApplySummary(
            summary,
            {
              outputDir: executeOptions.outputDir,
              stateDir: state.dir,
              manifestFile,
              runId,
              temporaryState:
                connection.simulator !== undefined && readStateDir(options).stateDir === undefined,
            },
            ctx.output.style,
          ),
        );
      }
      return EXIT_CODES[summary.exitReason];
    } finally {
      await state.close();
    }
  } finally {
    await connection.close();
    logger.flush();
  }
}

/**
 * Where the run's state lives. An in-process simulator forgets its jobs and uploads when the process
 * ends, so with `--simulate` state and upload cache go to a fresh temporary folder: kept beside the
 * manifest they would point the next run at jobs and files that no longer exist.
 */
async function stateLocation(
  options: Record<string, unknown>,
  simulated: boolean,
): Promise<{ stateDir?: string; uploadCachePath?: string }> {
  const explicit = readStateDir(options);
  if (!simulated) return explicit;
  const root = await mkdtemp(join(tmpdir(), 'runner-simulated-'));
  return { stateDir: explicit.stateDir ?? join(root, 'state'), uploadCachePath: join(root, 'uploads.json') };
}

function reportInvalid(
  ctx: CommandContext,
  prepared: Extract<Prepared, { ok: false }>,
  manifestFile: string,
) {
  ctx.output.err(renderIssues(prepared.issues, manifestFile, ctx.output.style));
  ctx.output.err('No job was created.');
  return ExitCode.InvalidInput;
}

/**
 * Flags to executor options. Against the simulator (`--simulate`) every duration of the polling
 * policy is scaled like the simulator's clock, so the demo shows the real policy, only faster.
 */
export function readExecuteOptions(
  ctx: Pick<CommandContext, 'cwd'>,
  options: Record<string, unknown>,
  run: {
    runId: string;
    timeScale: number;
    manifestDir: string;
    manifestOutput: string | undefined;
    pipeline: string;
    maxCredits?: number;
    /** The manifest's `retry:` block. */
    retry?: RetryOverrides;
  },
): ExecuteOptions & { outputDir?: string } {
  const scale = (ms: number) => Math.max(1, Math.round(ms * run.timeScale));
  const concurrency =
    parseNumberOption('concurrency', options.concurrency, { min: 1, max: 4, integer: true }) ?? 4;
  const deadlineSeconds = parseNumberOption('job-deadline', options.jobDeadline, { min: 1 });
  const executeOptions: ExecuteOptions & { outputDir?: string } = {
    runId: run.runId,
    concurrency,
    pollIntervalMs: readPollInterval(options.pollInterval) ?? [scale(3000), scale(5000)],
    jobDeadlineMs: deadlineSeconds === undefined ? scale(900_000) : deadlineSeconds * 1000,
    idempotencyWindowMs: scale(270_000),
    onUncertain: options.resendUncertain === true ? 'resend' : 'skip',
    retryFailed: options.retryFailed === true,
    download: options.download !== false,
    retry: {
      ...(run.retry?.maxAttempts === undefined ? {} : { maxAttempts: run.retry.maxAttempts }),
      ...(run.retry?.failureKinds === undefined ? {} : { actions: run.retry.failureKinds }),
      ...(run.retry?.backoffSeconds !== undefined
        ? { backoffMs: run.retry.backoffSeconds * 1000 }
        : run.timeScale === 1
          ? {}
          : { backoffMs: scale(DEFAULT_RETRY_POLICY.backoffMs) }),
    },
  };
  const firstPoll = parseNumberOption('first-poll', options.firstPoll, { min: 0, integer: true });
  if (firstPoll !== undefined) executeOptions.firstPollAfterMs = firstPoll;
  else if (run.timeScale !== 1) executeOptions.firstPollAfterMs = scale(10_000);
  if (run.maxCredits !== undefined) executeOptions.maxCredits = run.maxCredits;
  if (executeOptions.download === true) {
    const flag = typeof options.output === 'string' ? resolve(ctx.cwd, options.output) : undefined;
    const fromManifest =
      run.manifestOutput === undefined
        ? undefined
        : isAbsolute(run.manifestOutput)
          ? run.manifestOutput
          : join(run.manifestDir, run.manifestOutput);
    executeOptions.outputDir = flag ?? fromManifest ?? join(run.manifestDir, 'runner-output', run.pipeline);
  }
  return executeOptions;
}

/** `--poll-interval 4000` or `--poll-interval 3000-5000` (milliseconds). */
function readPollInterval(value: unknown): readonly [number, number] | undefined {
  const text = parseStringOption(value);
  if (text === undefined) return undefined;
  const match = /^(\d+)(?:-(\d+))?$/.exec(text.trim());
  const min = Number(match?.[1]);
  const max = match?.[2] === undefined ? min : Number(match[2]);
  if (match === null || max < min) {
    throw new UsageError(`--poll-interval expects milliseconds, "4000" or "3000-5000"; received "${text}".`);
  }
  return [min, max];
}
