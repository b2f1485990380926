import { UsageError } from '../errors.js';
import { DEFAULT_BASE_URL } from '../service/config.js';
import type { GlobalOptions } from '../app/context.js';
import { parseNumberOption, parseStringOption, readPollInterval } from './parse/values.js';
import { readRunId } from './parse/common.js';
import { readGuardrailLimits } from './parse/diff.js';

/** The service's advice: poll every 3 to 5 seconds (spec 4.4). Faster is refused against it. */
export const MIN_POLL_INTERVAL_MS = 1000;

/**
 * Checks every option value of a command before anything else happens (no network call, no file
 * written), so `--concurrency 8` or `--job-deadline 0` is refused at once, naming the flag as written.
 * The commands read the same values again with the same functions; this only makes the refusal early.
 */
export function checkFlagValues(
  command: string,
  options: Record<string, unknown>,
  context: { global: GlobalOptions; env: NodeJS.ProcessEnv },
): void {
  parseNumberOption('max-jobs', options.maxJobs, { min: 1, integer: true });
  if (command === 'plan' || command === 'apply') {
    parseNumberOption('max-credits', options.maxCredits, { min: 0 });
  }
  if (command === 'plan' || command === 'diff') {
    readGuardrailLimits(options);
  }
  readRunId(options);
  if (command === 'apply') {
    parseNumberOption('concurrency', options.concurrency, { min: 1, max: 4, integer: true });
    parseNumberOption('first-poll', options.firstPoll, { min: 0, integer: true });
    parseNumberOption('job-deadline', options.jobDeadline, { min: 1 });
    checkPollInterval(options.pollInterval, isSimulatorTarget(context));
  }
  if (command === 'simulate') {
    parseNumberOption('port', options.port, { min: 0, max: 65535, integer: true });
    parseNumberOption('time-scale', options.timeScale, { min: 0.0001, max: 100 });
    parseNumberOption('seed', options.seed, { integer: true });
  }
}

/**
 * `--poll-interval` is in milliseconds. Below a second it would hammer the real service (a user who
 * meant 5 seconds and wrote `5` would poll 200 times a second), so it is refused unless the target is
 * a simulator: `--simulate`, or a base URL on the loopback interface (tests and demos poll faster).
 */
function checkPollInterval(value: unknown, simulator: boolean): void {
  const range = readPollInterval(value);
  if (range === undefined || simulator || range[0] >= MIN_POLL_INTERVAL_MS) return;
  throw new UsageError(
    `--poll-interval is in milliseconds and must be at least ${MIN_POLL_INTERVAL_MS} against the service; received "${parseStringOption(value) ?? ''}".`,
    {
      hint: `The service asks for a poll every 3 to 5 seconds: e.g. --poll-interval 3000-5000${range[0] > 0 && range[0] < 60 ? ` (for ${range[0]} seconds: --poll-interval ${range[0] * 1000})` : ''}.`,
    },
  );
}

/** Whether the command talks to a simulator: `--simulate`, or a base URL on 127.0.0.1 / localhost / ::1. */
export function isSimulatorTarget(context: { global: GlobalOptions; env: NodeJS.ProcessEnv }): boolean {
  if (context.global.simulate === true) return true;
  const base = context.global.baseUrl ?? context.env.MEDIAGEN_BASE_URL ?? DEFAULT_BASE_URL;
  try {
    const host = new URL(base).hostname;
    return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
  } catch {
    return false;
  }
}
