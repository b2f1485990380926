import { ExitCode, type ErrorCode } from '../errors.js';
import type { Outcome } from '../app/outcome.js';

/**
 * The exit codes, in one file: a use case's outcome ({@link exitCodeOf}) and a thrown error's code
 * ({@link exitCodeOfError}, for ./report-error.ts). With {@link EXIT_CODE_HELP} below, the README's
 * "Exit codes" table.
 */

/** The exit code of what a use case did (src/app/outcome.ts). */
export function exitCodeOf(outcome: Outcome): ExitCode {
  switch (outcome) {
    case 'done':
      return ExitCode.Success;
    case 'results-unsaved':
    case 'journal-damaged':
    case 'declined':
    case 'jobs-unfinished':
    case 'outputs-unwritten':
      return ExitCode.Failure;
    case 'invalid-input':
      return ExitCode.InvalidInput;
    case 'over-limit':
    case 'increase-limit-crossed':
      return ExitCode.Credits;
    case 'auth-failed':
      return ExitCode.Authentication;
    case 'interrupted':
      return ExitCode.Interrupted;
    case 'terminated':
      return ExitCode.Terminated;
  }
}

/** The exit code of a thrown RunnerError, by its code; anything unexpected is a failure (1). */
export function exitCodeOfError(code: ErrorCode): ExitCode {
  switch (code) {
    case 'USAGE':
    case 'INVALID_INPUT':
      return ExitCode.InvalidInput;
    case 'INSUFFICIENT_CREDITS':
    case 'OVER_BUDGET':
      return ExitCode.Credits;
    case 'AUTHENTICATION':
      return ExitCode.Authentication;
    case 'INTERRUPTED':
      return ExitCode.Interrupted;
    default:
      return ExitCode.Failure;
  }
}

/** The help text's exit code table; docs/cli-reference.md carries the same table. */
export const EXIT_CODE_HELP = `Exit codes:
  0    success (apply, status: every job done, its results saved)
  1    apply, status: some jobs failed, are deferred, uncertain or not done yet (both judge a run
       alike); apply with --only, --exclude or --replace-from judges its own jobs (its summary
       names the run's others not done); the service could not be used, or the confirmation was declined;
       apply/status: a paid job's results are not all saved (downloading);
       apply: a result file (results index, report, JUnit) could not be written;
       comment: GitHub could not be used (not found, rate limited, comment refused);
       state check: the journal has a damaged line (and --repair was not given)
  2    invalid input or usage (manifest errors, unknown command or option)
  3    insufficient credits, or over the budget / --max-credits; diff and plan --compare-to: a
       --fail-on-increase or --fail-on-increase-percent limit crossed
  4    authentication failed (HTTP 401/403, or no API key); comment: no GitHub token, or
       GitHub refused it or its permission
  130  interrupted (Ctrl-C) before every job was done
  143  stopped by SIGTERM before every job was done`;

/**
 * The help text's environment section; docs/cli-reference.md "Environment and project file" carries the same. A flag
 * wins over its variable, the variable over the manifest and the built-in default.
 */
export const ENVIRONMENT_HELP = `Environment:
  MEDIAGEN_API_KEY    the service's API key
  MEDIAGEN_BASE_URL   the service's base URL
  RUNNER_STATE_DIR    default state folder (of --state-dir; not read by simulated runs)
  RUNNER_STATE_URL    state in PostgreSQL (of --state; password from PGPASSWORD or ~/.pgpass)
  RUNNER_OUTPUT       root of default download folders, <root>/<pipeline>/ (not read by simulated runs)
  RUNNER_CACHE_DIR    the runner's cache folder
  NO_COLOR            turn colors off
  GITHUB_TOKEN        comment github: the token (GITHUB_REPOSITORY, GITHUB_EVENT_PATH and
                      GITHUB_API_URL, as GitHub Actions sets them: where to comment)
  A flag wins over its variable, a variable over runner.config.yaml beside the manifest (stateDir,
  outputRoot: folders relative to it); a variable that is set but empty is an error.`;
