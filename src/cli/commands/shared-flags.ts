import { flag, type FlagDecl } from './command.js';

/**
 * Flags several commands take, declared once here with their help; each command module lists the
 * ones it takes. `type: [String]` makes a flag repeatable (cac gives an array); its values are kept
 * as written by src/cli/cac-adapter.ts (`--only 0012` stays "0012").
 */

/**
 * The global flags, on every command (src/cli/main.ts declares them on cac's global command; a
 * command's `globals` says which of the service flags it reads, `--no-color` works everywhere).
 * The global options are read into GlobalOptions by main.ts's pickGlobal.
 */
export const GLOBAL_FLAGS: readonly FlagDecl[] = [
  flag('--base-url <url>', 'Service base URL ending in /api/v2 (env MEDIAGEN_BASE_URL)'),
  flag('--api-key-file <file>', 'Read the API key from a file (default: env MEDIAGEN_API_KEY)'),
  flag('--simulate', 'Use an in-process simulator of the service instead of the real one'),
  flag('--sim-time-scale <factor>', 'With --simulate: multiply simulated durations', { default: 0.02 }),
  flag('--log-file <file>', 'Write JSON logs (pino) to this file'),
  flag('--no-color', 'Disable colors (also: NO_COLOR=1)'),
];

/** `--run`: its help says what the id does for the command. */
export const runFlag = (description: string): FlagDecl => flag('--run <id>', description, { type: [String] });

/** `--run` of the commands that read a run: status, report, state. */
export const RUN_FLAG = runFlag('Run id (default: "default")');

export const STATE_DIR_FLAG = flag(
  '--state-dir <dir>',
  'State folder (default: env RUNNER_STATE_DIR, else .runner/ beside the manifest)',
);

export const STATE_URL_FLAG = flag(
  '--state <url>',
  'State in PostgreSQL, postgres://user@host:port/db (password from PGPASSWORD or ~/.pgpass; env RUNNER_STATE_URL)',
);

/** Where a run's state is: a folder or a database. */
export const STATE_FLAGS: readonly FlagDecl[] = [STATE_DIR_FLAG, STATE_URL_FLAG];

/** What every manifest command (validate, plan, apply) reads of its jobs first. */
export const MANIFEST_FLAGS: readonly FlagDecl[] = [
  flag('--catalog <file>', 'Validate against a saved catalog (from `runner models --json`) offline'),
  flag('--max-jobs <n>', 'Refuse manifests that expand to more jobs than this (default 1000)'),
];

/** `--only` / `--exclude`: which jobs of the manifest. */
export const TARGETING_FLAGS: readonly FlagDecl[] = [
  flag('--only <glob>', 'Only jobs whose id matches (repeatable; * and ? wildcards)', { type: [String] }),
  flag('--exclude <glob>', 'Leave out jobs whose id matches (repeatable; * and ? wildcards)', {
    type: [String],
  }),
];

/** `--replace` / `--replace-from`: done jobs to run again (plan and apply). */
export const REPLACE_FLAGS: readonly FlagDecl[] = [
  flag(
    '--replace <id>',
    'Run this done job again: a new attempt with a new key, its old files superseded (repeatable)',
    { type: [String] },
  ),
  flag(
    '--replace-from <file>',
    "Run again exactly the jobs a review rejected: a decisions file exported from the run's report.html (at most 16 MiB)",
    { type: [String] },
  ),
];

/** `--var` / `--var-file`: the commands that render templates. */
export const VAR_FLAGS: readonly FlagDecl[] = [
  flag('--var <key=value>', 'Override a manifest var (repeatable; wins over --var-file)', { type: [String] }),
  flag('--var-file <file>', 'Override manifest vars from a YAML map of name: value (repeatable)', {
    type: [String],
  }),
];
