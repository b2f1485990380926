import type { ApplyOptions } from '../../app/apply-options.js';
import { parseByteSize, parseNumberOption, parseStringOption, readPollInterval } from './values.js';
import { readRunPlanFlags, type Flags } from './common.js';

/**
 * `runner apply` flags → {@link ApplyOptions}: numbers as numbers (`--concurrency` 1 to 4, default 4;
 * `--first-poll`, `--job-deadline`, `--max-download-size` in bytes), `--poll-interval` as a range.
 * `apply PLAN` reads the same options; the saved plan's own take the place of the ones it fixes in
 * the use case (src/app/saved-plan-io.ts, savedPlanInputs).
 */
export function parseApplyOptions(flags: Flags): ApplyOptions {
  const concurrency =
    parseNumberOption('concurrency', flags.concurrency, { min: 1, max: 4, integer: true }) ?? 4;
  const jobDeadlineSeconds = parseNumberOption('job-deadline', flags.jobDeadline, { min: 1 });
  const pollIntervalMs = readPollInterval(flags.pollInterval);
  const firstPollMs = parseNumberOption('first-poll', flags.firstPoll, { min: 0, integer: true });
  const maxDownloadBytes = parseByteSize('max-download-size', flags.maxDownloadSize);
  const junit = parseStringOption(flags.junit);
  // `--report` alone: the default place; `--no-report`: none.
  const report =
    flags.report === false ? false : flags.report === true ? undefined : parseStringOption(flags.report);
  return {
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
  };
}
