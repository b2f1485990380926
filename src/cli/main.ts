import { cac } from 'cac';
import { ExitCode, UsageError } from '../errors.js';
import type { CommandContext, GlobalOptions } from '../app/context.js';
import type { Outcome } from '../app/outcome.js';
import { ENVIRONMENT_HELP, EXIT_CODE_HELP, exitCodeOf } from './exit-codes.js';
import { createOutput, type Output } from './output.js';
import { readPackageInfo } from './package-info.js';
import { reportError } from './report-error.js';
import { checkFlagValues } from './check-flags.js';
import { parseNumberOption } from './parse/values.js';
import { askYesNo } from './confirm.js';
import { checkWrittenFlags, joinNegativeValues, namesOf, tidyHelpOptions } from './flags.js';
import { keepValuesAsWritten, readWrittenValues } from './written-values.js';
import { applyEnvDefaults } from './parse/env-defaults.js';
import { applyProjectConfig } from './parse/project-config.js';
import { suggestClosest } from '../suggest.js';
import { declareSharedFlags } from './shared-flags.js';

export interface CliIO {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Output['stdout'];
  stderr: Output['stderr'];
}

/**
 * A command: the context, its arguments and cac's flags in; what its use case did out. The flags are
 * parsed into the use case's typed options by the command (src/cli/parse/).
 */
type Action = (ctx: CommandContext, args: string[], flags: Record<string, unknown>) => Promise<Outcome>;

const STATE_DIR_HELP = 'State folder (default: env RUNNER_STATE_DIR, else .runner/ beside the manifest)';

/** Commands are loaded on demand so `runner --help` stays fast. */
const commands: Record<string, { load: () => Promise<Action> }> = {
  models: { load: async () => (await import('./commands/models.js')).runModels },
  balance: { load: async () => (await import('./commands/balance.js')).runBalance },
  simulate: { load: async () => (await import('./commands/simulate.js')).runSimulate },
  validate: { load: async () => (await import('./commands/validate-command.js')).runValidateCommand },
  plan: { load: async () => (await import('./commands/plan-command.js')).runPlanCommand },
  diff: { load: async () => (await import('./commands/diff.js')).runDiff },
  apply: { load: async () => (await import('./commands/apply-command.js')).runApplyCommand },
  status: { load: async () => (await import('./commands/status-command.js')).runStatusCommand },
  runs: { load: async () => (await import('./commands/runs-command.js')).runRunsCommand },
  render: { load: async () => (await import('./commands/render-command.js')).runRenderCommand },
  init: { load: async () => (await import('./commands/init-command.js')).runInitCommand },
  schema: { load: async () => (await import('./commands/schema.js')).runSchema },
  report: { load: async () => (await import('./commands/report-command.js')).runReportCommand },
  state: { load: async () => (await import('./commands/state-command.js')).runStateCommand },
  comment: { load: async () => (await import('./commands/comment-command.js')).runCommentCommand },
};

/** Runs the CLI and resolves to the exit code; never calls process.exit (see ./bin.ts). */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const cli = cac('runner');
  let code: number = ExitCode.Success;
  let pending: { name: string; args: string[]; options: Record<string, unknown> } | undefined;
  const capture =
    (name: string) =>
    (...received: unknown[]) => {
      const options = received.pop() as Record<string, unknown>;
      // A variadic argument (`plan a.yaml b.yaml`) arrives as one array.
      pending = { name, args: received.flat().map(String), options };
    };

  cli
    .option('--base-url <url>', 'Service base URL ending in /api/v2 (env MEDIAGEN_BASE_URL)')
    .option('--api-key-file <file>', 'Read the API key from a file (default: env MEDIAGEN_API_KEY)')
    .option('--simulate', 'Use an in-process simulator of the service instead of the real one')
    .option('--sim-time-scale <factor>', 'With --simulate: multiply simulated durations', { default: 0.02 })
    .option('--log-file <file>', 'Write JSON logs (pino) to this file')
    .option('--no-color', 'Disable colors (also: NO_COLOR=1)');

  declareCommands(cli, capture);
  declareSharedFlags(cli);
  cli.help((sections) => [
    ...sections.map((section) =>
      section.title === 'Options'
        ? { ...section, body: tidyHelpOptions(cli.matchedCommand?.name, section.body) }
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
      // `state push|pull` moves a run between a folder and a database: it names both on purpose.
      bothPlaces: cli.matchedCommand.name.startsWith('state'),
    });
    const ignored = checkWrittenFlags({
      command: cli.matchedCommand.name,
      argv: args,
      commandOptions: cli.matchedCommand.options,
      globalOptions: cli.globalCommand.options,
    });
    for (const warning of ignored) output.err(`${output.style.yellow('warning')} ${warning}`);
    await cli.runMatchedCommand();
    if (pending === undefined) return ExitCode.Success;
    if (pending.name === 'help') return await showHelp(pending.args[0], { cli, io, output });
    const entry = commands[pending.name];
    if (entry === undefined) throw new Error(`command ${pending.name} has no implementation`);
    const action = await entry.load();
    const global = pickGlobal(cli.options);
    // Flag > environment > runner.config.yaml beside the manifest > default.
    const env = await applyProjectConfig(pending.options, {
      // `runner state check FILE`: the manifest comes after the action.
      manifestFile:
        pending.name === 'state' ? pending.args[1] : pending.name === 'diff' ? undefined : pending.args[0],
      takes,
      env: io.env,
      simulate,
    });
    checkFlagValues(pending.name, pending.options, { global, env });
    const ctx = createContext({ ...io, env }, output, global);
    code = exitCodeOf(await action(ctx, pending.args, pending.options));
  } catch (error) {
    code = reportError(asUsageError(error), output, io.env);
  }
  return code;
}

/** Help text of `--state`, the same on every command that takes it. */
const STATE_URL_HELP =
  'State in PostgreSQL, postgres://user@host:port/db (password from PGPASSWORD or ~/.pgpass; env RUNNER_STATE_URL)';

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
  { cli, io, output }: { cli: ReturnType<typeof cac>; io: CliIO; output: Output },
): Promise<number> {
  if (topic === undefined) {
    cli.outputHelp();
    return ExitCode.Success;
  }
  const text = HELP_TOPICS[topic];
  if (text !== undefined) {
    output.out(text);
    return ExitCode.Success;
  }
  if (topic !== 'help' && topic in commands) return runCli([topic, '--help'], io);
  const known = [...Object.keys(HELP_TOPICS), ...Object.keys(commands)];
  const nearest = suggestClosest(topic, known);
  throw new UsageError(`No help on \`${topic}\`.`, {
    hint: `${nearest === undefined ? '' : `Did you mean \`runner help ${nearest}\`? `}Topics: ${Object.keys(HELP_TOPICS).join(', ')}; or a command: ${Object.keys(commands).join(', ')}.`,
  });
}

function declareCommands(
  cli: ReturnType<typeof cac>,
  capture: (name: string) => (...args: unknown[]) => void,
): void {
  cli
    .command('help [topic]', 'Show help: of a command, or of a topic (environment, exit-codes)')
    .example('runner help exit-codes')
    .action(capture('help'));

  cli
    .command('models', "List the model catalog: each model's input form, bounds, defaults and cost")
    .option('--category <category>', 'Only models of this category (image, video, voiceovervideo, ...)')
    .option('--json', 'Print the catalog as JSON (usable as `--catalog` for validate/plan)')
    .example('runner models --category image')
    .example('runner models --json > catalog.json')
    .action(capture('models'));

  cli
    .command('balance', 'Show the account balance (the API key in the response is never shown)')
    .option('--json', 'Print JSON')
    .action(capture('balance'));

  cli
    .command('simulate', 'Serve the embedded simulator of the service on 127.0.0.1 (for demos and tests)')
    .option('--port <port>', 'Port to listen on (0 = any free port)', { default: 8787 })
    .option('--time-scale <factor>', 'Multiply every simulated duration (0.01: a 60 s job takes 0.6 s)', {
      default: 1,
    })
    .option('--seed <n>', 'Seed for fault injection and random choices', { default: 1 })
    .option('--faults <spec>', 'Fault rates, e.g. "500=0.15,429=0.1,reset=0.03,slow=0.05"')
    .option('--api-key <key>', 'The API key the simulator accepts', { default: 'sim-key-0000' })
    .option('--dialect <spec>', 'Answer shapes beyond the spec, e.g. "balance=credits-only,numbersAsStrings"')
    .option('--hostile <spec>', 'Huge/slow answers, e.g. "errorTextBytes=100000,dripPollMs=500"')
    .option('--job-listing', 'Serve GET /jobs?since= (not in the spec; without it, 404)')
    .option('--clock-offset <seconds>', "The service's clock ahead (+) or behind (-) the real time")
    .option('--echo-api-key', 'Echo the keys in every error text and the API key in result URLs')
    .action(capture('simulate'));

  const manifestCommand = (name: string, description: string, args = '<manifest>') =>
    cli
      .command(`${name} ${args}`, description)
      .option('--catalog <file>', 'Validate against a saved catalog (from `runner models --json`) offline')
      .option('--max-jobs <n>', 'Refuse manifests that expand to more jobs than this (default 1000)');

  manifestCommand('validate', 'Check a manifest: YAML, schema, templates, matrix, params against the catalog')
    .option('--json', 'Print issues as JSON')
    .option('--strict', 'Fail (exit 2) on warnings too')
    .example('runner validate pipelines/demo.yaml --catalog catalog.json')
    .action(capture('validate'));

  manifestCommand(
    'plan',
    'Dry run: what apply would do and what it would cost, against the balance (several manifests or a glob: one report of each and the sum)',
    '<manifest> [...more]',
  )
    .option('--format <format>', 'text, json or markdown', { default: 'text' })
    .option('--out <file>', 'Also write the report to a file (json: only there, and a summary on stdout)')
    .option('--run <id>', 'Compare against the state of this run id', { type: [String] })
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--state <url>', STATE_URL_HELP)
    .option('--offline', 'Do not contact the service (needs --catalog; the balance is not checked)')
    .option('--max-credits <n>', "Check against this cap on the run's spending, as apply --max-credits does")
    .option('--retry-failed', 'Count jobs that failed permanently as to run, as apply --retry-failed does')
    .option('--resend-uncertain', 'Count unanswered creates as to run, as apply --resend-uncertain does')
    .option('--show <what>', '"payloads": also print each job\'s rendered prompt and params')
    .option('--out-plan <file>', 'Save the exact plan (JSON, mode 0600) for `runner apply FILE`')
    .option('--output <dir>', 'With --out-plan: the download folder the plan fixes for apply')
    .option('--compare-to <file>', 'Print the cost diff against this plan report (from `plan --format json`)')
    .option(
      '--fail-on-increase <credits>',
      'With --compare-to: exit 3 when the change adds more credits than this (N/run, N/night, N/month: the unit; as diff)',
    )
    .option(
      '--fail-on-increase-percent <n>',
      'With --compare-to: exit 3 when the change adds more than n % (n/run, n/month: the unit)',
    )
    .option(
      '--allow-empty',
      'A glob that matches nothing (or a missing manifest) is a side with no manifests, not an error: the base of the first pull request',
    )
    .option(
      '--catalog-fallback <file>',
      'Price with this catalog when the --catalog file does not exist here (the base commit before catalog.json)',
    )
    .example('runner plan pipelines/nightly-social.yaml --format markdown --out plan.md')
    .example("runner plan 'pipelines/*.yaml' --format json --out base.json")
    .example("runner plan 'pipelines/*.yaml' --compare-to base.json --fail-on-increase-percent 20")
    .action(capture('plan'));

  cli
    .command(
      'diff [...files]',
      'Cost diff of two plan reports: jobs added, removed, changed, renamed; per model, axis value, month',
    )
    .option('--compare-to <file>', 'The base report, when only the head is given as an argument')
    .option(
      '--format <format>',
      'text, json or markdown (the pull request comment, as `runner comment github` posts it)',
      {
        default: 'text',
      },
    )
    .option('--out <file>', 'Also write the diff to a file')
    .option(
      '--fail-on-increase <credits>',
      'Exit 3 when the change adds more credits than this: N/run, N/month, or N/night (day, week, hour) when every manifest runs on that schedule; a bare N counts per month when every manifest has a schedule, else per run',
    )
    .option(
      '--fail-on-increase-percent <n>',
      'Exit 3 when the change adds more than n % (n/run, n/month...: the unit, as above)',
    )
    .example('runner diff base.json head.json')
    .example('runner diff base.json head.json --format json --fail-on-increase 1000')
    .action(capture('diff'));

  manifestCommand('apply', 'Run the jobs: at most 4 at once, resumable, never paying twice for one job')
    .option('--yes, -y', 'Do not ask for confirmation on a terminal')
    .option('--run <id>', 'Run id; the same id resumes the same run (default: "default")', { type: [String] })
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--state <url>', STATE_URL_HELP)
    .option(
      '--output <dir>',
      "This run's output folder, used as given and kept for this run alone (default: a folder per run, <output:>/<run>/, else runner-output/<pipeline>/<run>/ beside the manifest or $RUNNER_OUTPUT/<pipeline>/<run>/)",
    )
    .option('--no-download', 'Record result URLs without downloading the files')
    .option(
      '--download-only',
      'Only download the results of done jobs that are not saved yet; creates and pays nothing',
    )
    .option('--concurrency <n>', 'Jobs open at once, 1 to 4', { default: 4 })
    .option('--max-credits <n>', 'Stop creating jobs before spending more than this')
    .option(
      '--poll-interval <ms>',
      'Poll interval in ms, "4000" or "3000-5000" (default 3000-5000, jittered)',
    )
    .option(
      '--first-poll <ms>',
      'Delay before the first poll of a job (default: 10 s for images, 20 s for videos)',
    )
    .option('--job-deadline <seconds>', 'Report a job as still running after this long (default 900)')
    .option(
      '--retry-failed',
      'Re-send jobs that failed permanently before (e.g. after fixing the service side)',
    )
    .option('--resend-uncertain', 'Re-send creates whose answer was lost after the idempotency window')
    .option('--max-download-size <size>', 'Refuse result files larger than this, e.g. 500MB (default 2GB)', {
      type: [String],
    })
    .option('--json', 'Print the final summary as JSON')
    .option('--report [file]', 'Write the HTML report here (default: report.html in the download folder)')
    .option('--no-report', 'Do not write the HTML report')
    .option('--junit <file>', 'Also write the run as JUnit XML (one test case per job)')
    .example('runner apply pipelines/demo.yaml --yes')
    .example('runner apply pipelines/nightly-social.yaml --run 2026-11-23 --replace-from decisions.json')
    .action(capture('apply'));

  cli
    .command('status <manifest>', 'Show every job of a run from its state: status, attempts, cost, files')
    .option('--run <id>', 'Run id (default: "default")', { type: [String] })
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--state <url>', STATE_URL_HELP)
    .option('--json', 'Print JSON')
    .action(capture('status'));

  cli
    .command(
      'runs <manifest>',
      "List the runs of the manifest's pipeline that have state: id, start, jobs, counts, credits; name runs left with paid jobs open",
    )
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--state <url>', STATE_URL_HELP)
    .option('--json', 'Print JSON')
    .example('runner runs pipelines/nightly-social.yaml --state-dir .runner-state')
    .action(capture('runs'));

  cli
    .command(
      'render <manifest>',
      "Print each job's rendered prompt and params (offline; templates, vars, matrix)",
    )
    .option('--json', 'Print JSON')
    .example('runner render pipelines/demo.yaml --only "cup-*"')
    .action(capture('render'));

  cli
    .command('init <file>', "Write a commented manifest for one model, from the catalog's form of it")
    .option('--model <slug>', 'The model (see `runner models`)')
    .option('--catalog <file>', 'Use a saved catalog (from `runner models --json`) instead of the service')
    .option('--force', 'Overwrite the file if it exists')
    .example('runner init pipelines/new.yaml --model chatgpt-image-sangtao --catalog catalog.json')
    .action(capture('init'));

  cli
    .command('schema', "Write the manifest's JSON Schema with every model's params typed from the catalog")
    .option('--catalog <file>', 'Use a saved catalog (from `runner models --json`) instead of the service')
    .option('--out <file>', 'Write to this file instead of stdout')
    .example('runner schema --catalog catalog.json --out pipeline.schema.json')
    .action(capture('schema'));

  cli
    .command('report <manifest>', 'Write a self-contained HTML gallery of what a run made (opens from disk)')
    .option('--run <id>', 'Run id (default: "default")', { type: [String] })
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--state <url>', STATE_URL_HELP)
    .option('--output <dir>', 'Output folder of a run of an earlier release (a run records its own)')
    .option('--out <file>', 'Where to write the page (default: report.html in the download folder)')
    .example('runner report pipelines/demo.yaml --run 2026-11-23 --out report.html')
    .action(capture('report'));

  cli
    .command(
      'state <action> [manifest]',
      "A run's state: check its journal (check), move it between its folder and PostgreSQL (push, pull), show or break its lease (lease), delete old runs' state (prune: never their results)",
    )
    .option('--run <id>', 'Run id (default: "default")', { type: [String] })
    .option('--state-dir <dir>', STATE_DIR_HELP)
    .option('--state <url>', STATE_URL_HELP)
    .option('--repair', 'With check: cut the journal at its first bad line, keeping a copy of it whole')
    .option('--break', 'With lease: end the lease now (its holder stops before its next create)')
    .option('--json', 'With lease, prune: print JSON')
    .option(
      '--keep-runs <n>',
      "With prune: keep the pipeline's n newest runs (by start); prune deletes state only, never results",
    )
    .option(
      '--older-than <age>',
      'With prune: only runs last applied longer ago than this: 30d, 12h, 2w, or a date',
    )
    .option('--pipeline <name>', "With prune: this pipeline's runs (default: the manifest's)", {
      type: [String],
    })
    .option(
      '--dry-run',
      'With prune: list what would be deleted (run, start, last apply, jobs, size); delete nothing',
    )
    .option(
      '--force',
      'With prune: also delete runs with paid jobs unfinished (their results then cannot be followed); never a live one',
    )
    .example('runner state check pipelines/nightly-social.yaml --run 2026-11-23 --repair')
    .example(
      'runner state push pipelines/nightly-social.yaml --run 2026-11-23 --state postgres://ci@db/runner',
    )
    .example('runner state lease pipelines/nightly-social.yaml --run 2026-11-23 --break')
    .example('runner state prune pipelines/nightly-social.yaml --keep-runs 7 --dry-run')
    .action(capture('state'));

  cli
    .command(
      'comment <provider>',
      'Post a cost diff (`runner diff --format json`) to its pull request as one comment, kept up to date (provider: github)',
    )
    .option('--path <file>', 'The cost diff JSON (from `runner diff base.json head.json --format json`)')
    .option('--repo <owner/name>', 'The repository (default: env GITHUB_REPOSITORY)')
    .option('--pull-request <n>', "The pull request's number (default: the GITHUB_EVENT_PATH event's)", {
      type: [String],
    })
    .option('--github-token-file <file>', 'Read the GitHub token from a file (default: env GITHUB_TOKEN)')
    .option(
      '--github-api-url <url>',
      'GitHub API base URL (default: env GITHUB_API_URL, else https://api.github.com)',
    )
    .option(
      '--behavior <behavior>',
      'update: edit our comment in place; new: add one each time; delete-and-new: delete ours, add one',
      { default: 'update' },
    )
    .option(
      '--when <when>',
      'always; changed: only when the cost changed; increased: only when it went up (an existing comment is still updated)',
      { default: 'always' },
    )
    .option('--tag <tag>', 'Keep this comment apart from other cost comments on the same pull request')
    .option(
      '--dry-run',
      'Print the comment and what would be done; send nothing (reads the comments if a token is set)',
    )
    .option('--format <format>', 'text or json', { default: 'text' })
    .example('runner comment github --path diff.json --behavior update --when changed')
    .action(capture('comment'));
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
  const known = Object.keys(commands);
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
