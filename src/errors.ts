/**
 * One error hierarchy for the whole runner. Every error a user can meet carries a `code` from
 * {@link ErrorCode}; the CLI maps codes to exit codes in one place (src/cli/exit-codes.ts, with the use cases' outcomes).
 * Messages say what went wrong, where, what was expected and what was received. They never contain
 * the API key: the service layer strips it before an error is built.
 */

export type ErrorCode =
  /** Bad command line: unknown command or option, missing argument. */
  | 'USAGE'
  /** The manifest, a catalog file or another input failed validation. */
  | 'INVALID_INPUT'
  /** The plan costs more than the account's available credit (or HTTP 402). */
  | 'INSUFFICIENT_CREDITS'
  /** The plan or the run would cross the manifest `budget` or `--max-credits`. */
  | 'OVER_BUDGET'
  /** HTTP 401/403, or no API key configured. */
  | 'AUTHENTICATION'
  /** HTTP 400 from the service. */
  | 'SERVICE_VALIDATION'
  /** HTTP 404 from the service. */
  | 'NOT_FOUND'
  /** HTTP 429 or `AGENT_QUEUE_FULL`, after the retries were spent. */
  | 'RATE_LIMITED'
  /** HTTP 5xx, after the retries were spent. */
  | 'SERVER_ERROR'
  /** Connection refused or reset, DNS failure, request timeout, after the retries were spent. */
  | 'NETWORK'
  /** The service answered 200 with a body that does not match the expected shape. */
  | 'UNEXPECTED_RESPONSE'
  /** Another process holds the state lock. */
  | 'STATE_LOCKED'
  /** The state journal cannot be read (other than a torn last line, which is tolerated). */
  | 'STATE_CORRUPT'
  /** The state journal was written in a format version this runner does not know (a newer runner). */
  | 'STATE_VERSION'
  /** The state folder belongs to another pipeline or run, or holds several runs in one journal. */
  | 'STATE_MISMATCH'
  /** `runner status` of a run that has no state. */
  | 'STATE_NOT_FOUND'
  /** The state database (`--state postgres://…`) cannot be reached, or its connection was lost. */
  | 'STATE_UNREACHABLE'
  /** The results store (an output folder, an S3 bucket) cannot be read or written. */
  | 'RESULTS_UNREACHABLE'
  /** Ctrl-C / SIGTERM. */
  | 'INTERRUPTED'
  /** A bug: asks to be reported. */
  | 'INTERNAL';

/** Documented exit codes (docs/cli-reference.md "Exit codes"). */
export const ExitCode = {
  Success: 0,
  /** Some jobs failed, or a command could not complete (service unreachable, unexpected answer). */
  Failure: 1,
  InvalidInput: 2,
  Credits: 3,
  Authentication: 4,
  Interrupted: 130,
  /** Stopped by SIGTERM (128 + 15), e.g. a CI runner cancelling the job. */
  Terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export class RunnerError extends Error {
  readonly code: ErrorCode;
  /** A short, actionable next step for the user, printed under the message. */
  readonly hint: string | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; hint?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.hint = options?.hint;
  }
}

export class UsageError extends RunnerError {
  constructor(message: string, options?: { cause?: unknown; hint?: string }) {
    super('USAGE', message, options);
  }
}

export function isRunnerError(value: unknown): value is RunnerError {
  return value instanceof RunnerError;
}
