import { UsageError } from '../errors.js';
import { parseStringOption } from './parse-options.js';

/**
 * What a run id may be: it names a folder of the state (`<root>/<pipeline>/<run>/`), so only
 * letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 120 characters. Anything
 * else used to be rewritten into such a name (`../x` → `__x`), so two different ids could share one
 * run's state; now it is refused.
 */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/;

/** The run id of apply/plan/status/report: `--run`, default `default`. Refuses ids that are not {@link RUN_ID}. */
export function readRunId(options: Record<string, unknown>): string {
  const runId = parseStringOption(options.run);
  if (runId === undefined) return 'default';
  checkRunId(runId);
  return runId;
}

/** Throws a usage error (exit 2) for a run id that cannot name a state folder as written. */
export function checkRunId(runId: string): void {
  if (RUN_ID.test(runId)) return;
  throw new UsageError(
    `--run expects letters, digits, ".", "_" and "-", starting with a letter or digit (at most 120); received ${JSON.stringify(runId)}.`,
    { hint: 'The run id names a folder of the state, e.g. `--run 2026-11-22` or `--run nightly.3`.' },
  );
}

/** `--output` (or RUNNER_OUTPUT, see ./env-defaults.ts), when given. */
export function readOutputFlag(options: Record<string, unknown>): string | undefined {
  return parseStringOption(options.output);
}

/** Where a run's state lives: a folder (`--state-dir`), or PostgreSQL (`--state`); neither: beside the manifest. */
export interface StateOptions {
  stateDir?: string;
  stateUrl?: string;
}

/**
 * Where the run's state lives: `--state-dir DIR` (a folder), or `--state postgres://…` (or
 * RUNNER_STATE_URL, see ./env-defaults.ts). Both at once are a usage error.
 */
export function readStateDir(options: Record<string, unknown>): StateOptions {
  const stateUrl = parseStringOption(options.state);
  const stateDir = parseStringOption(options.stateDir);
  if (stateDir !== undefined && stateUrl !== undefined) throw twoStatePlaces();
  if (stateDir !== undefined) return { stateDir };
  return stateUrl === undefined ? {} : { stateUrl };
}

/** `--state` and `--state-dir` (or a saved plan's state folder) at once: a usage error. */
export function twoStatePlaces(): UsageError {
  return new UsageError('--state and --state-dir name two places for the same state: give one.', {
    hint: '--state-dir DIR keeps the state in a folder; --state postgres://user@host:port/db in PostgreSQL.',
  });
}
