import type { RepeatedFlags } from '../../app/rerun-command.js';
import { UsageError } from '../../errors.js';
import { twoStatePlaces, type StateOptions } from '../../app/run-options.js';
import { parseStateUrl } from '../../state/state-url.js';
import type { VarFlags } from '../../app/var-options.js';
import { parseNumberOption, parseStringOption } from './values.js';
import type { ManifestOptions } from '../../app/prepare-plan.js';
import type { RunPlanOptions } from '../../app/run-plan-options.js';
import type { ReadRunOptions } from '../../app/read-only-run.js';
import type { Targeting } from '../../plan/select-jobs.js';

/**
 * What several commands' flags mean, read once from cac's flags record (after the environment and
 * the project file filled their defaults, src/cli/main.ts) into the typed options the use cases in
 * src/app/ take. Each command's own parse function (./<command>.ts) builds on these.
 */

/** cac's flags: every value as written (src/cli/cac-adapter.ts), under camelCase names. */
export type Flags = Record<string, unknown>;

/**
 * `--run`, `--state-dir` / `--state`, `--var` / `--var-file`, `--only` / `--exclude` and the hint's
 * flags: what finds a run and its jobs (status, report). A bad run id or two states is a usage error.
 */
export function readRunFlags(flags: Flags): ReadRunOptions {
  return {
    runId: readRunId(flags),
    state: readStateDir(flags),
    vars: readVarFlags(flags),
    targeting: { only: readList(flags.only, true), exclude: readList(flags.exclude, true) },
    repeat: readRepeatedFlags(flags),
  };
}

/** The targeting flags of a command (absent flags are empty lists; empty patterns are dropped). */
export function readTargeting(flags: Flags): Targeting {
  return {
    only: readList(flags.only, true),
    exclude: readList(flags.exclude, true),
    replace: readList(flags.replace, true),
  };
}

/** The `--var` / `--var-file` flags as given (absent flags are empty lists). */
export function readVarFlags(flags: Flags): VarFlags {
  return { vars: readList(flags.var, false), varFiles: readList(flags.varFile, false) };
}

function readList(value: unknown, dropEmpty: boolean): string[] {
  if (value === undefined || value === null) return [];
  const items: unknown[] = Array.isArray(value) ? value : [value];
  return items.filter((item) => item !== undefined && !(dropEmpty && item === '')).map(String);
}

/** `--catalog`, `--max-jobs`, targeting and vars: what every manifest command reads of its jobs. */
export function readManifestFlags(flags: Flags): ManifestOptions {
  const maxJobs = parseNumberOption('max-jobs', flags.maxJobs, { min: 1, integer: true });
  return {
    targeting: readTargeting(flags),
    varFlags: readVarFlags(flags),
    ...(typeof flags.catalog === 'string' ? { catalogFile: flags.catalog } : {}),
    ...(maxJobs === undefined ? {} : { maxJobs }),
  };
}

/** What plan and apply both read: the jobs, the run and its state, what may be paid, the hint's flags. */
export function readRunPlanFlags(flags: Flags): RunPlanOptions {
  // In the order they are refused: the jobs' bounds, the spending cap, the run.
  const manifest = readManifestFlags(flags);
  const maxCredits = parseNumberOption('max-credits', flags.maxCredits, { min: 0 });
  const runId = readRunId(flags);
  const output = parseStringOption(flags.output);
  const replaceFrom = parseStringOption(flags.replaceFrom);
  return {
    ...manifest,
    runId,
    state: readStateDir(flags),
    ...(output === undefined ? {} : { output }),
    ...(maxCredits === undefined ? {} : { maxCredits }),
    retryFailed: flags.retryFailed === true,
    resendUncertain: flags.resendUncertain === true,
    ...(replaceFrom === undefined ? {} : { replaceFrom }),
    repeat: readRepeatedFlags(flags),
  };
}

/**
 * What a run id may be: it names a folder of the state (`<root>/<pipeline>/<run>/`), so only
 * letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most 120 characters. Anything
 * else used to be rewritten into such a name (`../x` → `__x`), so two different ids could share one
 * run's state; now it is refused.
 */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,119}$/;

/** The run id of apply/plan/status/report: `--run`, default `default`. Refuses ids that are not {@link RUN_ID}. */
export function readRunId(flags: Flags): string {
  const runId = parseStringOption(flags.run);
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

/**
 * Where the run's state lives: `--state-dir DIR` (a folder), or `--state postgres://…` (or
 * RUNNER_STATE_URL, see ./env-defaults.ts). Both at once are a usage error.
 */
export function readStateDir(flags: Flags): StateOptions {
  const stateUrl = parseStringOption(flags.state);
  const stateDir = parseStringOption(flags.stateDir);
  if (stateDir !== undefined && stateUrl !== undefined) throw twoStatePlaces();
  // A URL carrying a password is refused before anything could show it (#31.12).
  if (stateUrl !== undefined) parseStateUrl(stateUrl);
  if (stateDir !== undefined) return { stateDir };
  return stateUrl === undefined ? {} : { stateUrl };
}

/** The flags a "run this next" hint repeats, read from cac's flags as written. */
export function readRepeatedFlags(flags: Flags): RepeatedFlags {
  const texts = (value: unknown) =>
    (Array.isArray(value) ? (value as unknown[]) : [value])
      .map(parseStringOption)
      .filter((text) => text !== undefined);
  return {
    run: parseStringOption(flags.run),
    stateDir: parseStringOption(flags.stateDir),
    state: parseStringOption(flags.state),
    output: parseStringOption(flags.output),
    var: texts(flags.var),
    varFile: texts(flags.varFile),
    only: texts(flags.only),
    exclude: texts(flags.exclude),
    replaceFrom: parseStringOption(flags.replaceFrom),
    maxCredits: parseStringOption(flags.maxCredits),
    maxJobs: parseStringOption(flags.maxJobs),
  };
}
