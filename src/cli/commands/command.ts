import type { CommandContext, GlobalOptions } from '../../app/context.js';
import type { Outcome } from '../../app/outcome.js';

/**
 * What a command is, in one module (`src/cli/commands/<name>.ts`, listed in ./registry.ts): its name,
 * arguments and flags as cac declares them, the global flags it reads, how its arguments and flags
 * become typed options (once, before anything is read or sent), and how it runs them.
 *
 * This file and the command modules' top level import nothing heavy: `runner --help` loads them
 * all. What a command runs (its use case in src/app/, its views) is imported inside `parse` / `run`.
 */

/** A flag as cac declares it: `'--state-dir <dir>'`, its help line, and cac's config. */
export interface FlagDecl {
  rawName: string;
  description: string;
  config?: { default?: unknown; type?: unknown[] };
}

/** The global flags a command may read (src/cli/main.ts declares them on cac's global command). */
export type ServiceFlag = 'base-url' | 'api-key-file' | 'simulate' | 'sim-time-scale' | 'log-file';

/** What a command's `parse` reads: cac's flags after the environment and runner.config.yaml filled them. */
export interface ParseInput {
  args: string[];
  /** cac's flags under camelCase names, every value as written (src/cli/cac-adapter.ts). */
  flags: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  global: GlobalOptions;
}

export interface CommandSpec<Options> {
  name: string;
  /** cac's argument syntax after the name: `'<manifest>'`, `'<manifest> [...more]'`, `''`. */
  args: string;
  description: string;
  flags: readonly FlagDecl[];
  /**
   * The global flags it reads. The others are left out of its help and, when given, named in a
   * warning rather than silently dropped (issue #7.7); `--no-color` works everywhere.
   */
  globals: readonly ServiceFlag[];
  examples?: readonly string[];
  /** The argument naming the manifest whose runner.config.yaml fills defaults, if any. */
  manifestArg?: number;
  /**
   * It names a folder and a database at once on purpose (`state push|pull`): `--state-dir` with
   * RUNNER_STATE_URL (or `--state` with RUNNER_STATE_DIR) is not refused as two places.
   */
  bothStatePlaces?: boolean;
  /** Arguments and flags → typed options; a bad value is a UsageError naming the flag (exit 2). */
  parse: (input: ParseInput) => Options | Promise<Options>;
  run: (ctx: CommandContext, options: Options) => Promise<Outcome>;
}

/** A command of the registry, its options' type hidden: `prepare` parses, the result runs. */
export interface Command extends Omit<CommandSpec<unknown>, 'parse' | 'run'> {
  prepare: (input: ParseInput) => Promise<(ctx: CommandContext) => Promise<Outcome>>;
}

export function defineCommand<Options>(spec: CommandSpec<Options>): Command {
  const { parse, run, ...declaration } = spec;
  return {
    ...declaration,
    async prepare(input) {
      const options = await parse(input);
      return (ctx) => run(ctx, options);
    },
  };
}

/** The service flags: the commands that talk to the service read them all. */
export const SERVICE_FLAGS: readonly ServiceFlag[] = [
  'base-url',
  'api-key-file',
  'simulate',
  'sim-time-scale',
  'log-file',
];

/** A flag declaration: `flag('--json', 'Print JSON')`. */
export function flag(rawName: string, description: string, config?: FlagDecl['config']): FlagDecl {
  return config === undefined ? { rawName, description } : { rawName, description, config };
}
