import { cac } from 'cac';
import { ExitCode, UsageError } from '../errors.js';
import type { CommandContext, GlobalOptions } from '../app/context.js';
import { ENVIRONMENT_HELP, EXIT_CODE_HELP, exitCodeOf } from './exit-codes.js';
import type { Output } from '../app/output-sink.js';
import { createOutput } from './output.js';
import { readPackageInfo } from './package-info.js';
import { reportError } from './report-error.js';
import { parseNumberOption } from './parse/values.js';
import { askYesNo } from './effects/confirm.js';
import {
  checkWrittenFlags,
  joinNegativeValues,
  keepValuesAsWritten,
  namesOf,
  readWrittenValues,
  tidyHelpOptions,
} from './cac-adapter.js';
import { applyEnvDefaults } from './parse/env-defaults.js';
import { applyProjectConfig } from './parse/project-config.js';
import { suggestClosest } from '../suggest.js';
import type { Command } from './commands/command.js';
import { COMMANDS } from './commands/registry.js';
import { GLOBAL_FLAGS } from './commands/shared-flags.js';

export interface CliIO {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Output['stdout'];
  stderr: Output['stderr'];
}

/** The commands by name: `help` is main's own (./commands/registry.ts lists the others). */
const COMMAND_BY_NAME: ReadonlyMap<string, Command> = new Map(
  COMMANDS.map((command) => [command.name, command]),
);
const COMMAND_NAMES = COMMANDS.map((command) => command.name);

/** The global flags a command reads (`help`: none); undefined for the general help. */
function readsGlobals(name: string | undefined): readonly string[] | undefined {
  if (name === undefined) return undefined;
  return COMMAND_BY_NAME.get(name)?.globals ?? [];
}

/** Runs the CLI and resolves to the exit code; never calls process.exit (see ./bin.ts). */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const cli = cac('runner');
  let code: number = ExitCode.Success;
  let pending: { name: string; args: string[]; options: Record<string, unknown> } | undefined;
  const capture =
    (name: string) =>
    (...received: unknown[]) => {
      const options = received.pop() as Record<string, unknown>;
      // A variadic argument (`plan a.yaml b.yaml`) arrives as one array; an optional argument left
      // out arrives as undefined, which is absent, not the word "undefined" (`runner help`).
      const args = received.flat().filter((arg) => arg !== undefined);
      pending = { name, args: args.map(String), options };
    };

  for (const { rawName, description, config } of GLOBAL_FLAGS) cli.option(rawName, description, config);

  declareCommands(cli, capture);
  cli.help((sections) => [
    ...sections.map((section) =>
      section.title === 'Options'
        ? { ...section, body: tidyHelpOptions(readsGlobals(cli.matchedCommand?.name), section.body) }
        : section,
    ),
    // The environment and exit codes are shown whole once, in `runner --help`; a command's help
    // points to them (#33.13: ~40 lines repeated under every command's options).
    ...(cli.matchedCommand === undefined
      ? [
          { title: '', body: ENVIRONMENT_HELP },
          { title: '', body: EXIT_CODE_HELP },
        ]
      : [{ title: '', body: HELP_TOPICS_POINTER }]),
  ]);
  cli.version(readPackageInfo().version);

  let output = createOutput({ env: io.env, stdout: io.stdout, stderr: io.stderr });
  try {
    const declared = [...cli.globalCommand.options, ...cli.commands.flatMap((command) => command.options)];
    const args = joinNegativeValues(argv, declared);
    cli.parse(['node', 'runner', ...args], { run: false });
    output = createOutput({
      env: io.env,
      stdout: io.stdout,
      stderr: io.stderr,
      colorFlag: cli.options.color as boolean | undefined,
    });
    if (cli.options.help === true || cli.options.version === true) return ExitCode.Success;
    if (cli.matchedCommand === undefined) {
      const [name] = cli.args;
      if (name === undefined) {
        cli.outputHelp();
        return ExitCode.InvalidInput;
      }
      throw unknownCommand(name);
    }
    const matched = [...cli.globalCommand.options, ...cli.matchedCommand.options];
    keepValuesAsWritten(cli.options, readWrittenValues(args, matched), matched);
    const takes = new Set(cli.matchedCommand.options.flatMap(namesOf));
    const simulate = cli.options.simulate === true;
    applyEnvDefaults(cli.options, {
      takes,
      env: io.env,
      simulate,
      bothPlaces: COMMAND_BY_NAME.get(cli.matchedCommand.name)?.bothStatePlaces === true,
    });
    const ignored = checkWrittenFlags({
      command: cli.matchedCommand.name,
      argv: args,
      commandOptions: cli.matchedCommand.options,
      globalOptions: cli.globalCommand.options,
      readsGlobals: readsGlobals(cli.matchedCommand.name) ?? [],
    });
    for (const warning of ignored) output.err(`${output.style.yellow('warning')} ${warning}`);
    await cli.runMatchedCommand();
    if (pending === undefined) return ExitCode.Success;
    if (pending.name === 'help') return await showHelp(pending.args[0], { io, output });
    const command = COMMAND_BY_NAME.get(pending.name);
    if (command === undefined) throw new Error(`command ${pending.name} has no implementation`);
    const global = pickGlobal(cli.options);
    // Flag > environment > runner.config.yaml beside the manifest > default.
    const env = await applyProjectConfig(pending.options, {
      manifestFile: command.manifestArg === undefined ? undefined : pending.args[command.manifestArg],
      takes,
      env: io.env,
      simulate,
    });
    // Every value is read here, once, before anything is read from or sent to anyone.
    const run = await command.prepare({ args: pending.args, flags: pending.options, env, global });
    code = exitCodeOf(await run(createContext({ ...io, env }, output, global)));
  } catch (error) {
    code = reportError(asUsageError(error), output, io.env);
  }
  return code;
}

/** The line a command's help ends with, in place of the environment and exit code tables. */
const HELP_TOPICS_POINTER =
  'Environment variables: `runner help environment`. Exit codes: `runner help exit-codes`.';

/** `runner help` topics beside the commands' own help. */
const HELP_TOPICS: Readonly<Record<string, string>> = {
  environment: ENVIRONMENT_HELP,
  'exit-codes': EXIT_CODE_HELP,
};

/**
 * `runner help [topic]`: the general help, a command's help (as `runner <command> --help`), or a
 * topic (`environment`, `exit-codes`). An unknown topic is a usage error naming the nearest one.
 */
async function showHelp(
  topic: string | undefined,
  { io, output }: { io: CliIO; output: Output },
): Promise<number> {
  // `runner help` alone is `runner --help` (cac's outputHelp here would show help's own help).
  if (topic === undefined) return runCli(['--help'], io);
  const text = HELP_TOPICS[topic];
  if (text !== undefined) {
    output.out(text);
    return ExitCode.Success;
  }
  if (COMMAND_BY_NAME.has(topic)) return runCli([topic, '--help'], io);
  const known = [...Object.keys(HELP_TOPICS), ...COMMAND_NAMES];
  const nearest = suggestClosest(topic, known);
  throw new UsageError(`No help on \`${topic}\`.`, {
    hint: `${nearest === undefined ? '' : `Did you mean \`runner help ${nearest}\`? `}Topics: ${Object.keys(HELP_TOPICS).join(', ')}; or a command: ${COMMAND_NAMES.join(', ')}.`,
  });
}

/** Declares `help` and every command of the registry on cac, each flag as its module declares it. */
function declareCommands(
  cli: ReturnType<typeof cac>,
  capture: (name: string) => (...args: unknown[]) => void,
): void {
  cli
    .command('help [topic]', 'Show help: of a command, or of a topic (environment, exit-codes)')
    .example('runner help exit-codes')
    .action(capture('help'));
  for (const command of COMMANDS) {
    const declared = cli.command(
      command.args === '' ? command.name : `${command.name} ${command.args}`,
      command.description,
    );
    for (const { rawName, description, config } of command.flags)
      declared.option(rawName, description, config);
    for (const example of command.examples ?? []) declared.example(example);
    declared.action(capture(command.name));
  }
}

function pickGlobal(options: Record<string, unknown>): GlobalOptions {
  const global: GlobalOptions = {};
  if (typeof options.baseUrl === 'string') global.baseUrl = options.baseUrl;
  if (typeof options.apiKeyFile === 'string') global.apiKeyFile = options.apiKeyFile;
  if (options.simulate === true) global.simulate = true;
  const simTimeScale = parseNumberOption('sim-time-scale', options.simTimeScale, { min: 0.0001, max: 100 });
  if (simTimeScale !== undefined) global.simTimeScale = simTimeScale;
  if (typeof options.logFile === 'string') global.logFile = options.logFile;
  if (options.color === false) global.color = false;
  return global;
}

function createContext(io: CliIO, output: Output, global: GlobalOptions): CommandContext {
  const canPrompt = io.stdin.isTTY === true && output.interactive;
  return {
    output,
    env: io.env,
    cwd: io.cwd,
    global,
    canPrompt,
    confirm: (question) => askYesNo(io.stdin, io.stderr, question),
  };
}

function unknownCommand(name: string): UsageError {
  const known = COMMAND_NAMES;
  const nearest = suggestClosest(name, known);
  const hint =
    nearest === undefined
      ? `Commands: ${known.join(', ')}. See \`runner --help\`.`
      : `Did you mean \`runner ${nearest}\`? See \`runner --help\`.`;
  return new UsageError(`Unknown command \`${name}\`.`, { hint });
}

/** cac throws plain errors named CACError for unknown options and missing arguments. */
function asUsageError(error: unknown): unknown {
  if (error instanceof Error && error.name === 'CACError') {
    return new UsageError(`${error.message}.`, { hint: 'See `runner --help` or `runner <command> --help`.' });
  }
  return error;
}
