import { UsageError } from '../errors.js';

/** Where a run's state lives: a folder (`--state-dir`), or PostgreSQL (`--state`); neither: beside the manifest. */
export interface StateOptions {
  stateDir?: string;
  stateUrl?: string;
}

/** `--state` and `--state-dir` (or a saved plan's state folder) at once: a usage error. */
export function twoStatePlaces(): UsageError {
  return new UsageError('--state and --state-dir name two places for the same state: give one.', {
    hint: '--state-dir DIR keeps the state in a folder; --state postgres://user@host:port/db in PostgreSQL.',
  });
}
