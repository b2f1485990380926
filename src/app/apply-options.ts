import { statSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_RETRY_POLICY } from '../execute/failure-policy.js';
import type { ExecuteOptions } from '../execute/options.js';
import type { RetryOverrides } from '../manifest/types.js';
import type { CommandContext } from './context.js';
import type { StateOptions } from './run-options.js';
import type { WriteTarget } from './preflight.js';
import type { RunPlanOptions } from './run-plan-options.js';
import {
  type AcquireLockOptions,
  hostOf,
  resolveStateDir,
  resolveStateRoot,
  toSafeSegment,
  UPLOAD_CACHE_FILE,
  uploadCachePathFor,
} from '../state/index.js';
import { OUTPUT_ROOT_ENV } from './output-root.js';
import { namedPage } from './page-file.js';
import { isS3Output, joinOutputLocation, resolveOutputLocation } from './output-location.js';

/** What `runner apply` is asked, besides what plan is asked too (RunPlanOptions). */
export interface ApplyOptions extends RunPlanOptions {
  /** `--yes`: do not ask on a terminal. */
  yes: boolean;
  /** `--no-download` makes it false: result URLs are recorded, files not downloaded. */
  download: boolean;
  /** `--download-only`: fetch the results owed by done jobs; create and pay nothing. */
  downloadOnly: boolean;
  /** `--concurrency`: jobs open at once, 1 to 4. @default 4 */
  concurrency: number;
  /** `--poll-interval`: the range polls are spread over, in milliseconds. */
  pollIntervalMs?: readonly [number, number];
  /** `--first-poll`: the delay before a job's first poll, in milliseconds. */
  firstPollMs?: number;
  /** `--job-deadline`: a job is reported as still running after this long, in seconds. */
  jobDeadlineSeconds?: number;
  /** `--max-download-size`, in bytes. */
  maxDownloadBytes?: number;
  /** `--json`: the final summary as JSON. */
  json: boolean;
  /** `--report FILE`, or false for `--no-report`; not set: the manifest's `report:` or the default. */
  report?: string | false;
  /** `--junit FILE`. */
  junit?: string;
  /**
   * `project:` of runner.config.yaml beside the manifest: which repository's pipeline the run is, in
   * place of the one derived from the repository (#31.13).
   */
  project?: string;
  /** How the run's state is held, from the environment (src/cli/parse/state-env.ts). */
  stateTuning?: StateTuning;
}

/** `RUNNER_SNAPSHOT_EVERY`, `RUNNER_LOCK_STALE_MS` and `RUNNER_LEASE_TTL_MS`, as the state store takes them. */
export interface StateTuning {
  /** Fewest journal records between two state snapshots. */
  snapshotEvery?: number;
  /** The folder lock's lease and heartbeat (and a faked host identity, for tests). */
  lock?: AcquireLockOptions;
  /** The PostgreSQL lease's time to live. */
  leaseTtlMs?: number;
}

/**
 * Where the run's state lives. An in-process simulator forgets its jobs and uploads when the process
 * ends, so with `--simulate` state and upload cache go to a fresh temporary folder: kept beside the
 * manifest they would point the next run at jobs and files that no longer exist.
 */
export async function stateLocation(
  explicit: StateOptions,
  simulated: boolean,
): Promise<{ stateDir?: string; stateUrl?: string; uploadCachePath?: string }> {
  if (!simulated) return explicit;
  const root = await mkdtemp(join(tmpdir(), 'runner-simulated-'));
  const uploadCachePath = join(root, 'uploads.json');
  // A database named on purpose is used as named (tests of the PostgreSQL backend run on the simulator).
  if (explicit.stateUrl !== undefined) return { stateUrl: explicit.stateUrl, uploadCachePath };
  return { stateDir: explicit.stateDir ?? join(root, 'state'), uploadCachePath };
}

/** What of apply's options the executor's options come from. */
export type ExecuteFlags = Pick<
  ApplyOptions,
  | 'concurrency'
  | 'jobDeadlineSeconds'
  | 'pollIntervalMs'
  | 'firstPollMs'
  | 'resendUncertain'
  | 'retryFailed'
  | 'download'
  | 'output'
> & { targeting: Pick<ApplyOptions['targeting'], 'replace'> };

/**
 * Apply's options to executor options. Against the simulator (`--simulate`) every duration of the polling
 * policy is scaled like the simulator's clock, so the demo shows the real policy, only faster.
 */
/**
 * apply's default timing against a service whose durations are multiplied by `timeScale` (a
 * simulator's): polls, the first poll and the job deadline scaled alike. `--simulate` runs with it;
 * `runner simulate` prints it as flags, so an apply against a served simulator polls at its pace.
 */
export function scaledTiming(timeScale: number): {
  pollIntervalMs: [number, number];
  firstPollMs: number;
  jobDeadlineMs: number;
} {
  const scale = (ms: number) => Math.max(1, Math.round(ms * timeScale));
  return {
    pollIntervalMs: [scale(3000), scale(5000)],
    firstPollMs: scale(10_000),
    jobDeadlineMs: scale(900_000),
  };
}

export function readExecuteOptions(
  ctx: OutputContext,
  options: ExecuteFlags,
  run: {
    runId: string;
    timeScale: number;
    manifestDir: string;
    manifestOutput: string | undefined;
    pipeline: string;
    /** The output folder the run's state recorded (its earlier release's absolute paths are read as keys). */
    recordedOutputDir?: string | undefined;
    /** True when that folder is this machine's ({@link isRecordedOutputHere}). */
    recordedHere?: boolean | undefined;
    /** The run's jobs, targeting aside (journaled for `runner runs`). */
    runJobs?: number;
    maxCredits?: number;
    /** The manifest's `retry:` block. */
    retry?: RetryOverrides;
  },
): ExecuteOptions & { outputDir?: string } {
  const scale = (ms: number) => Math.max(1, Math.round(ms * run.timeScale));
  const timing = scaledTiming(run.timeScale);
  const { concurrency, jobDeadlineSeconds: deadlineSeconds } = options;
  const executeOptions: ExecuteOptions & { outputDir?: string } = {
    runId: run.runId,
    concurrency,
    pollIntervalMs:
      options.pollIntervalMs === undefined ? timing.pollIntervalMs : [...options.pollIntervalMs],
    jobDeadlineMs: deadlineSeconds === undefined ? timing.jobDeadlineMs : deadlineSeconds * 1000,
    idempotencyWindowMs: scale(270_000),
    onUncertain: options.resendUncertain ? 'resend' : 'skip',
    retryFailed: options.retryFailed,
    replace: [...options.targeting.replace],
    download: options.download,
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
  const firstPoll = options.firstPollMs;
  if (firstPoll !== undefined) executeOptions.firstPollAfterMs = firstPoll;
  else if (run.timeScale !== 1) executeOptions.firstPollAfterMs = timing.firstPollMs;
  if (run.maxCredits !== undefined) executeOptions.maxCredits = run.maxCredits;
  if (run.runJobs !== undefined) executeOptions.runJobs = run.runJobs;
  // Set with --no-download too: the results index and the report go there, and the run records it.
  executeOptions.outputDir = resolveOutputDir(ctx, options.output, run);
  if (run.recordedOutputDir !== undefined) executeOptions.recordedOutputDir = run.recordedOutputDir;
  if (ctx.env !== undefined) executeOptions.host = hostOf(ctx.env);
  return executeOptions;
}

/** What the output folder depends on besides the flags: the working folder, RUNNER_OUTPUT, --simulate. */
export type OutputContext = Pick<CommandContext, 'cwd'> & Partial<Pick<CommandContext, 'env' | 'global'>>;

/** What decides a run's output folder (see {@link resolveOutputDir}). */
export interface OutputDirInput {
  manifestDir: string;
  manifestOutput: string | undefined;
  pipeline: string;
  runId: string;
  /** The folder the run's state recorded, if any. */
  recordedOutputDir?: string | undefined;
  /** True when that folder is this machine's: recorded here and still here ({@link isRecordedOutputHere}). */
  recordedHere?: boolean | undefined;
}

/**
 * Whether the output folder the state recorded is one of this machine (#30.1): recorded by this
 * machine (`hostOf`; a run of an earlier release did not say) and a folder here. A resumed run on the
 * machine that started it stays in its folder; any other machine resolves its own.
 */
export function isRecordedOutputHere(
  dir: string | undefined,
  recordedHost: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): boolean {
  if (dir === undefined || (recordedHost !== undefined && recordedHost !== hostOf(env))) return false;
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The run's own output folder (issue 20 item 5), where its downloads, results index and report go:
 * - `--output DIR`: DIR itself, as named (a folder of this run's own: a claim file in it refuses
 *   any other run, see src/state/output-claim.ts);
 * - else the folder the run's state recorded when it is this machine's (a resumed run stays where it
 *   started), never one another machine recorded: that is a path there (another runner, another
 *   checkout); this machine resolves its own and fetches the results missing there (#30.1);
 * - else `<output:>/<run>/` (the manifest's `output:`, relative to the manifest) or
 *   `<root>/<pipeline>/<run>/`, root RUNNER_OUTPUT (not read with `--simulate`) or `runner-output/`
 *   beside the manifest: shared by every run (RUNNER_OUTPUT by every pipeline), so each gets a folder.
 */
export function resolveOutputDir(
  ctx: OutputContext,
  /** `--output`, when given. */
  flag: string | undefined,
  run: OutputDirInput,
): string {
  if (flag !== undefined) return resolveOutputLocation(ctx.cwd, flag);
  if (run.recordedOutputDir !== undefined && run.recordedHere === true) return run.recordedOutputDir;
  // A bucket is the same place from every machine: the run stays in the one it recorded (#30.3).
  if (run.recordedOutputDir !== undefined && isS3Output(run.recordedOutputDir)) return run.recordedOutputDir;
  const envRoot = ctx.global?.simulate === true ? undefined : ctx.env?.[OUTPUT_ROOT_ENV];
  const defaultRoot =
    envRoot === undefined ? join(run.manifestDir, 'runner-output') : resolveOutputLocation(ctx.cwd, envRoot);
  const root =
    run.manifestOutput === undefined
      ? joinOutputLocation(defaultRoot, toSafeSegment(run.pipeline))
      : isAbsolute(run.manifestOutput)
        ? run.manifestOutput
        : resolveOutputLocation(run.manifestDir, run.manifestOutput);
  return joinOutputLocation(root, toSafeSegment(run.runId));
}

/**
 * Where apply's HTML report goes: `--no-report` or manifest `report: false` turn it off; `--report FILE`
 * (relative to the working folder) or manifest `report: PATH` (relative to the manifest) move it; by
 * default `report.html` in the run's output folder (in a bucket output: its `report.html` object).
 */
export function resolveReportFile(
  ctx: Pick<CommandContext, 'cwd'>,
  options: Pick<ApplyOptions, 'report'>,
  manifest: { report?: boolean | string | undefined },
  where: { manifestDir: string; resultsDir: string },
): string | undefined {
  if (options.report === false) return undefined;
  if (options.report !== undefined) return resolve(ctx.cwd, namedPage(options.report, ctx.cwd));
  if (manifest.report === false) return undefined;
  if (typeof manifest.report === 'string') {
    const page = namedPage(manifest.report, where.manifestDir);
    return isAbsolute(page) ? page : join(where.manifestDir, page);
  }
  return joinOutputLocation(where.resultsDir, 'report.html');
}

/**
 * What apply will write, for the preflight. Without `run`: the paths the flags and the environment
 * name (checked before any request). With it (the manifest read): also the output folder, the report
 * the manifest names, the state folder and the upload cache, as apply will use them; with `--simulate`
 * the state lives in a fresh temporary folder. The results index, `--junit`, the report and
 * `GITHUB_STEP_SUMMARY` are written after the run: checked here, before anything is paid.
 */
export function applyWriteTargets(
  ctx: OutputContext & Pick<CommandContext, 'global' | 'env'>,
  options: Pick<ApplyOptions, 'junit' | 'output' | 'report' | 'state'>,
  run?: OutputDirInput & {
    manifestFile: string;
    /** The manifest's `report:`. */
    manifestReport?: boolean | string | undefined;
    simulated: boolean;
  },
): WriteTarget[] {
  const targets: WriteTarget[] = [];
  if (ctx.global.logFile !== undefined)
    targets.push({ path: ctx.global.logFile, kind: 'file', what: '--log-file', noLinks: true });
  const { junit } = options;
  if (junit !== undefined) targets.push({ path: junit, kind: 'file', what: '--junit', replaced: true });
  const summary = ctx.env.GITHUB_STEP_SUMMARY;
  if (summary !== undefined && summary !== '')
    targets.push({ path: summary, kind: 'file', what: 'GITHUB_STEP_SUMMARY' });
  const { stateDir } = options.state;
  if (run === undefined) {
    const { output } = options;
    // A bucket is checked by the store's preflight (a probe object), once the run's output is known.
    if (output !== undefined && !isS3Output(output))
      targets.push({ path: output, kind: 'dir', what: '--output' });
    const report = typeof options.report === 'string' ? options.report : undefined;
    if (report !== undefined)
      targets.push({ path: namedPage(report, ctx.cwd), kind: 'file', what: '--report', replaced: true });
    if (stateDir !== undefined) targets.push({ path: stateDir, kind: 'dir', what: '--state-dir' });
    return targets;
  }
  // The results index goes to the output folder with --no-download too.
  const outputDir = resolveOutputDir(ctx, options.output, run);
  const inBucket = isS3Output(outputDir);
  if (!inBucket) targets.push({ path: outputDir, kind: 'dir', what: 'output folder' });
  const report = resolveReportFile(
    ctx,
    options,
    { report: run.manifestReport },
    { manifestDir: run.manifestDir, resultsDir: outputDir },
  );
  // The default report.html lies in the output folder (or bucket), checked above.
  if (
    report !== undefined &&
    dirname(report) !== outputDir &&
    !(inBucket && report.startsWith(`${outputDir}/`))
  )
    targets.push({ path: report, kind: 'file', what: 'report', replaced: true });
  if (stateDir !== undefined || !run.simulated) {
    targets.push({
      path: resolveStateDir({
        manifestFile: run.manifestFile,
        pipeline: run.pipeline,
        runId: run.runId,
        ...(stateDir === undefined ? {} : { stateDir }),
      }),
      kind: 'dir',
      what: 'state folder',
    });
  }
  if (!run.simulated) {
    // With --state-dir the upload cache lives there too: nothing is made beside the manifest.
    const uploadCache =
      stateDir === undefined
        ? uploadCachePathFor(run.manifestFile)
        : join(resolveStateRoot({ manifestFile: run.manifestFile, stateDir }), UPLOAD_CACHE_FILE);
    targets.push({ path: uploadCache, kind: 'file', what: 'upload cache' });
  }
  return targets;
}
