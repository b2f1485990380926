import type { ApplyOptions } from '../../app/apply-options.js';
import {
  parseByteSize,
  parseLocalPathOption,
  parseNumberOption,
  parseStringOption,
  readPollInterval,
} from './values.js';
import { readRunPlanFlags, type Flags } from './common.js';
import { readStateTuning } from './state-env.js';
import { UsageError } from '../../errors.js';
import type { GlobalOptions } from '../../app/context.js';
import { MAX_CONCURRENCY } from '../../execute/concurrency.js';
import { DEFAULT_BASE_URL } from '../../service/config.js';

/**
 * `runner apply` flags → {@link ApplyOptions}: numbers as numbers (`--concurrency` 1 to 4, default 4;
 * `--first-poll`, `--job-deadline`, `--max-download-size` in bytes), `--poll-interval` as a range.
 * `apply PLAN` reads the same options; the saved plan's own take the place of the ones it fixes in
 * the use case (src/app/saved-plan-io.ts, savedPlanInputs).
 */
export function parseApplyOptions(
  flags: Flags,
  env: Readonly<Record<string, string | undefined>> = {},
): ApplyOptions {
  // The values every run-planning command reads come first, as they are refused in that order.
  const runPlan = readRunPlanFlags(flags);
  // The CLI's one check of the range, naming the flag; executePlan keeps its own guard for callers
  // that are not the CLI (the shared queue starts that many workers, unclamped).
  const concurrency =
    parseNumberOption('concurrency', flags.concurrency, { min: 1, max: MAX_CONCURRENCY, integer: true }) ??
    MAX_CONCURRENCY;
  const firstPollMs = parseNumberOption('first-poll', flags.firstPoll, { min: 0, integer: true });
  const jobDeadlineSeconds = parseNumberOption('job-deadline', flags.jobDeadline, { min: 1 });
  const pollIntervalMs = readPollInterval(flags.pollInterval);
  const maxDownloadBytes = parseByteSize('max-download-size', flags.maxDownloadSize);
  const junit = parseLocalPathOption('junit', flags.junit);
  // `--report` alone: the default place; `--no-report`: none.
  const report =
    flags.report === false
      ? false
      : flags.report === true
        ? undefined
        : parseLocalPathOption('report', flags.report);
  const options: ApplyOptions = {
    ...runPlan,
    yes: flags.yes === true,
    download: flags.download !== false,
    downloadOnly: flags.downloadOnly === true,
    concurrency,
    ...(pollIntervalMs === undefined ? {} : { pollIntervalMs }),
    ...(firstPollMs === undefined ? {} : { firstPollMs }),
    ...(jobDeadlineSeconds === undefined ? {} : { jobDeadlineSeconds }),
    ...(maxDownloadBytes === undefined ? {} : { maxDownloadBytes }),
    json: flags.json === true,
    ...(report === undefined ? {} : { report }),
    ...(junit === undefined ? {} : { junit }),
    // Set from runner.config.yaml (./project-config.ts), never a flag of its own.
    ...(typeof flags.project === 'string' ? { project: flags.project } : {}),
    stateTuning: readStateTuning(env),
  };
  refuseDownloadOnlyContradictions(options);
  return options;
}

/**
 * `--download-only`: fetch the results owed by done jobs and nothing else (#20.8). Flags that ask for
 * creates, or for no downloads, contradict it: a usage error before anything is read.
 */
function refuseDownloadOnlyContradictions(options: ApplyOptions): void {
  if (!options.downloadOnly) return;
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
}

/** The service's advice: poll every 3 to 5 seconds (spec 4.4). Faster is refused against it. */
export const MIN_POLL_INTERVAL_MS = 1000;

/**
 * `--poll-interval` is in milliseconds. Below a second it would hammer the real service (a user who
 * meant 5 seconds and wrote `5` would poll 200 times a second), so it is refused unless the target is
 * a simulator: `--simulate`, or a base URL on the loopback interface (tests and demos poll faster).
 */
export function checkPollInterval(
  written: unknown,
  range: readonly [number, number] | undefined,
  target: { global: GlobalOptions; env: NodeJS.ProcessEnv },
): void {
  if (range === undefined || isSimulatorTarget(target) || range[0] >= MIN_POLL_INTERVAL_MS) return;
  throw new UsageError(
    `--poll-interval is in milliseconds and must be at least ${MIN_POLL_INTERVAL_MS} against the service; received "${parseStringOption(written) ?? ''}".`,
    {
      hint: `The service asks for a poll every 3 to 5 seconds: e.g. --poll-interval 3000-5000${range[0] > 0 && range[0] < 60 ? ` (for ${range[0]} seconds: --poll-interval ${range[0] * 1000})` : ''}.`,
    },
  );
}

/** Whether the command talks to a simulator: `--simulate`, or a base URL on 127.0.0.1 / localhost / ::1. */
function isSimulatorTarget(target: { global: GlobalOptions; env: NodeJS.ProcessEnv }): boolean {
  if (target.global.simulate === true) return true;
  const base = target.global.baseUrl ?? target.env.MEDIAGEN_BASE_URL ?? DEFAULT_BASE_URL;
  try {
    const host = new URL(base).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}
