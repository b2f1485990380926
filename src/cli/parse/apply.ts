import type { ApplyOptions } from '../../app/apply-options.js';
import { parseByteSize, parseLocalPathOption, parseNumberOption, readPollInterval } from './values.js';
import { readRunPlanFlags, type Flags } from './common.js';
import { readStateTuning } from './state-env.js';
import { UsageError } from '../../errors.js';

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
  const concurrency =
    parseNumberOption('concurrency', flags.concurrency, { min: 1, max: 4, integer: true }) ?? 4;
  const jobDeadlineSeconds = parseNumberOption('job-deadline', flags.jobDeadline, { min: 1 });
  const pollIntervalMs = readPollInterval(flags.pollInterval);
  const firstPollMs = parseNumberOption('first-poll', flags.firstPoll, { min: 0, integer: true });
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
    ...readRunPlanFlags(flags),
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
