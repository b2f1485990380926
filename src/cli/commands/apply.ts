import { defineCommand, flag, SERVICE_FLAGS } from './command.js';
import {
  MANIFEST_FLAGS,
  REPLACE_FLAGS,
  runFlag,
  STATE_FLAGS,
  TARGETING_FLAGS,
  VAR_FLAGS,
} from './shared-flags.js';

/**
 * `runner apply FILE|PLAN`: the use case is src/app/apply.ts; the terminal gives it the service, the
 * log, the system clock and its views (problems, live progress with Ctrl-C / SIGTERM, the summary:
 * ../render/apply-view.ts).
 */
export const applyCommand = defineCommand({
  name: 'apply',
  args: '<manifest>',
  description: 'Run the jobs: at most 4 at once, resumable, never paying twice for one job',
  flags: [
    ...MANIFEST_FLAGS,
    flag('--yes, -y', 'Do not ask for confirmation on a terminal'),
    runFlag('Run id; the same id resumes the same run (default: "default")'),
    ...STATE_FLAGS,
    flag(
      '--output <dir>',
      "This run's output folder, used as given and kept for this run alone (default: a folder per run, <output:>/<run>/, else runner-output/<pipeline>/<run>/ beside the manifest or $RUNNER_OUTPUT/<pipeline>/<run>/)",
    ),
    flag('--no-download', 'Record result URLs without downloading the files'),
    flag(
      '--download-only',
      'Only download the results of done jobs that are not saved yet; creates and pays nothing',
    ),
    flag('--concurrency <n>', 'Jobs open at once, 1 to 4', { default: 4 }),
    flag('--max-credits <n>', 'Stop creating jobs before spending more than this'),
    flag('--poll-interval <ms>', 'Poll interval in ms, "4000" or "3000-5000" (default 3000-5000, jittered)'),
    flag(
      '--first-poll <ms>',
      'Delay before the first poll of a job (default: 10 s for images, 20 s for videos)',
    ),
    flag('--job-deadline <seconds>', 'Report a job as still running after this long (default 900)'),
    flag(
      '--retry-failed',
      'Re-send jobs that failed permanently before (e.g. after fixing the service side)',
    ),
    flag('--resend-uncertain', 'Re-send creates whose answer was lost after the idempotency window'),
    flag('--max-download-size <size>', 'Refuse result files larger than this, e.g. 500MB (default 2GB)', {
      type: [String],
    }),
    flag('--json', 'Print the final summary as JSON'),
    flag(
      '--report [file]',
      'Write the HTML report here; a folder (existing, or written with a trailing /) gets report.html inside it (default: report.html in the download folder)',
    ),
    flag('--no-report', 'Do not write the HTML report'),
    flag('--junit <file>', 'Also write the run as JUnit XML (one test case per job)'),
    ...TARGETING_FLAGS,
    ...REPLACE_FLAGS,
    ...VAR_FLAGS,
  ],
  globals: SERVICE_FLAGS,
  examples: [
    'runner apply pipelines/demo.yaml --yes',
    'runner apply pipelines/nightly-social.yaml --run 2026-11-23 --replace-from decisions.json',
  ],
  manifestArg: 0,
  async parse({ args, flags, env, global }) {
    const { checkPollInterval, parseApplyOptions } = await import('../parse/apply.js');
    const options = parseApplyOptions(flags, env);
    checkPollInterval(flags.pollInterval, options.pollIntervalMs, { global, env });
    return { target: args[0] ?? '', options };
  },
  async run(ctx, { target, options }) {
    const { runApply } = await import('../../app/apply.js');
    const { systemClock } = await import('../../clock.js');
    const { connect } = await import('../effects/connect.js');
    const { createLogger } = await import('../effects/logger.js');
    const { TERMINAL_APPLY_VIEW } = await import('../render/apply-view.js');
    return runApply(ctx, target, options, {
      connect,
      createLogger,
      clock: systemClock,
      view: TERMINAL_APPLY_VIEW,
    });
  },
});
