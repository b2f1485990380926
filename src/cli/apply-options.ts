import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_RETRY_POLICY } from '../execute/failure-policy.js';
import type { ExecuteOptions } from '../execute/options.js';
import type { RetryOverrides } from '../manifest/types.js';
import type { CommandContext } from './context.js';
import { parseNumberOption, readPollInterval } from './parse-options.js';
import { readOutputFlag, readStateDir } from './run-options.js';
import type { WriteTarget } from './preflight.js';
import { resolveStateDir, uploadCachePathFor } from '../state/state-dir.js';
import { readTargeting } from './targeting-options.js';
import { OUTPUT_ROOT_ENV } from './env-defaults.js';

/**
 * Where the run's state lives. An in-process simulator forgets its jobs and uploads when the process
 * ends, so with `--simulate` state and upload cache go to a fresh temporary folder: kept beside the
 * manifest they would point the next run at jobs and files that no longer exist.
 */
export async function stateLocation(
  options: Record<string, unknown>,
  simulated: boolean,
): Promise<{ stateDir?: string; uploadCachePath?: string }> {
  const explicit = readStateDir(options);
  if (!simulated) return explicit;
  const root = await mkdtemp(join(tmpdir(), 'runner-simulated-'));
  return { stateDir: explicit.stateDir ?? join(root, 'state'), uploadCachePath: join(root, 'uploads.json') };
}

/**
 * Flags to executor options. Against the simulator (`--simulate`) every duration of the polling
 * policy is scaled like the simulator's clock, so the demo shows the real policy, only faster.
 */
export function readExecuteOptions(
  ctx: OutputContext,
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
    replace: readTargeting(options).replace,
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
  if (executeOptions.download === true) executeOptions.outputDir = resolveOutputDir(ctx, options, run);
  return executeOptions;
}

/** What the output folder depends on besides the flags: the working folder, RUNNER_OUTPUT, --simulate. */
export type OutputContext = Pick<CommandContext, 'cwd'> & Partial<Pick<CommandContext, 'env' | 'global'>>;

/**
 * The download folder: `--output`, else the manifest's `output:`, else `<root>/<pipeline>/` where root
 * is RUNNER_OUTPUT (not read with `--simulate`) or `runner-output/` beside the manifest. RUNNER_OUTPUT
 * is a root, like RUNNER_STATE_DIR, so pipelines that share it never share a folder. The results index
 * and the report go there even with `--no-download`.
 */
export function resolveOutputDir(
  ctx: OutputContext,
  options: Record<string, unknown>,
  run: { manifestDir: string; manifestOutput: string | undefined; pipeline: string },
): string {
  const given = readOutputFlag(options);
  const flag = given === undefined ? undefined : resolve(ctx.cwd, given);
  const fromManifest =
    run.manifestOutput === undefined
      ? undefined
      : isAbsolute(run.manifestOutput)
        ? run.manifestOutput
        : join(run.manifestDir, run.manifestOutput);
  const envRoot = ctx.global?.simulate === true ? undefined : ctx.env?.[OUTPUT_ROOT_ENV];
  const root = envRoot === undefined ? join(run.manifestDir, 'runner-output') : resolve(ctx.cwd, envRoot);
  return flag ?? fromManifest ?? join(root, run.pipeline);
}

/**
 * What apply will write, for the preflight. Without `run`: the paths the flags name (checked before
 * any request). With it (the manifest read): also the output folder, the state folder and the upload
 * cache, as apply will use them; with `--simulate` the state lives in a fresh temporary folder.
 */
export function applyWriteTargets(
  ctx: OutputContext & Pick<CommandContext, 'global'>,
  options: Record<string, unknown>,
  run?: {
    manifestFile: string;
    pipeline: string;
    runId: string;
    manifestDir: string;
    manifestOutput: string | undefined;
    simulated: boolean;
  },
): WriteTarget[] {
  const download = options.download !== false;
  const targets: WriteTarget[] = [];
  if (ctx.global.logFile !== undefined)
    targets.push({ path: ctx.global.logFile, kind: 'file', what: '--log-file', noLinks: true });
  const { stateDir } = readStateDir(options);
  if (run === undefined) {
    const output = readOutputFlag(options);
    if (download && output !== undefined) targets.push({ path: output, kind: 'dir', what: '--output' });
    if (stateDir !== undefined) targets.push({ path: stateDir, kind: 'dir', what: '--state-dir' });
    return targets;
  }
  if (download)
    targets.push({ path: resolveOutputDir(ctx, options, run), kind: 'dir', what: 'output folder' });
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
  if (!run.simulated)
    targets.push({ path: uploadCachePathFor(run.manifestFile), kind: 'file', what: 'upload cache' });
  return targets;
}
