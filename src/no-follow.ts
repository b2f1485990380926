import { constants } from 'node:fs';
import { RunnerError } from './errors.js';

/**
 * Open flags for a file the runner writes at a path the user named (`plan --out`, `--log-file`): never
 * through a symbolic link at its last part (O_NOFOLLOW), so a link planted there cannot send a report
 * or a log, or truncate a file, somewhere else (issue #24.9).
 */
export const WRITE_NO_FOLLOW =
  constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/** {@link WRITE_NO_FOLLOW}, appending instead of truncating. */
export const APPEND_NO_FOLLOW =
  constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW;

/** Why a link is refused, for messages. */
export const LINK_REFUSED =
  'is a symbolic link: the runner does not write through links (name the file it points to, or remove the link)';

/**
 * The clear error for a write refused by O_NOFOLLOW (ELOOP: the path is a symbolic link); any other
 * error is handed back unchanged.
 */
export function explainLinkError(error: unknown, what: string, path: string): unknown {
  if ((error as NodeJS.ErrnoException | undefined)?.code !== 'ELOOP') return error;
  return new RunnerError('INVALID_INPUT', `${what} ${path} ${LINK_REFUSED}.`, { cause: error });
}
