import { isRunnerError, type ErrorCode } from '../errors.js';
import { ServiceError } from '../service/errors.js';

/** The RunnerError code of an error, if it is one (errors are matched by code, not class). */
export function errorCodeOf(error: unknown): ErrorCode | undefined {
  return isRunnerError(error) ? error.code : undefined;
}

export function errorMessageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether an earlier send of the failed request may have been acted on (see {@link ServiceError}). */
export function earlierSendMayHaveActed(error: unknown): boolean {
  return error instanceof ServiceError && error.earlierSendMayHaveActed;
}
