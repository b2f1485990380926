import { displayStateUrl } from '../state/state-url.js';
import type { GlobalOptions } from './context.js';

/** Commands a hint may tell the user to run. */
export type RerunCommandName = 'apply' | 'plan' | 'status' | 'report' | 'runs';

/** What apply and plan repeat alike: both plan the same run's jobs. */
const PLANNED_RUN: readonly FlagName[] = [
  'run',
  'state-dir',
  'state',
  'output',
  'var',
  'var-file',
  'only',
  'exclude',
  'replace-from',
  'max-credits',
  'max-jobs',
];

/**
 * The flags a hint repeats, per command: those that locate the run's state and results (`--run`,
 * `--state-dir` or `--state`, `--output`) and those that shape its jobs (vars, targeting, caps). Left out on
 * purpose: `--replace` and `--retry-failed` (repeating them would pay for those jobs again) and
 * `--resend-uncertain` (a hint adds it only where it means it). `--replace-from` is repeated: it
 * selects the rejected jobs, and re-generates only those whose rejected attempt is still their latest.
 */
const REPEATED: Record<RerunCommandName, readonly FlagName[]> = {
  apply: PLANNED_RUN,
  plan: PLANNED_RUN,
  status: ['run', 'state-dir', 'state', 'var', 'var-file'],
  report: ['run', 'state-dir', 'state', 'output', 'var', 'var-file'],
  runs: ['state-dir', 'state'],
};

/**
 * The flags a hint may repeat, as the command was given them (text as written, or as an environment
 * default set it; lists in the order given), keyed like cac's camelCase names. The CLI reads them
 * off the command line (src/cli/parse/common.ts, readRepeatedFlags); apply of a saved plan puts the plan's own in.
 */
export interface RepeatedFlags {
  run?: string | undefined;
  stateDir?: string | undefined;
  /**
   * The database of the run's state (`--state`, or RUNNER_STATE_URL): a hint that dropped it would
   * resume the run from an empty `.runner/` and pay for its jobs again (#31.1). Never with a password.
   */
  state?: string | undefined;
  output?: string | undefined;
  var?: readonly string[] | undefined;
  varFile?: readonly string[] | undefined;
  only?: readonly string[] | undefined;
  exclude?: readonly string[] | undefined;
  replaceFrom?: string | undefined;
  maxCredits?: string | undefined;
  maxJobs?: string | undefined;
}

/** Commands that talk to the service, so repeat how they reach it. */
const CONNECTED = new Set<RerunCommandName>(['apply', 'plan']);

/**
 * The command line a hint shows ("run `runner apply m.yaml --run night1 --state-dir s` again"), with
 * every flag of the command that locates the run and shapes its jobs as it was given (flag or
 * environment default), shell-quoted, so following the hint reaches the same state and pays for
 * nothing twice. `extra` is appended (e.g. `--resend-uncertain`).
 */
export function rerunCommand(
  command: RerunCommandName,
  target: string,
  flags: RepeatedFlags,
  global: Pick<GlobalOptions, 'simulate' | 'baseUrl' | 'apiKeyFile'>,
  extra: readonly string[] = [],
): string {
  const words = ['runner', command, target];
  for (const flag of REPEATED[command]) {
    const value = flags[camelCase(flag)];
    const texts: readonly string[] = value === undefined ? [] : typeof value === 'string' ? [value] : value;
    for (const text of texts) {
      if (flag === 'run' && text === 'default') continue;
      words.push(`--${flag}`, flag === 'state' ? displayStateUrl(text) : text);
    }
  }
  if (CONNECTED.has(command)) {
    if (global.simulate === true) words.push('--simulate');
    if (global.baseUrl !== undefined) words.push('--base-url', global.baseUrl);
    if (global.apiKeyFile !== undefined) words.push('--api-key-file', global.apiKeyFile);
  }
  words.push(...extra);
  return words.map(shellQuote).join(' ');
}

/**
 * A word as a POSIX shell reads it back unchanged: as is when it holds only safe characters, else
 * in single quotes (a `'` inside becomes `'\''`).
 */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A repeated flag as written on the command line (`state-dir`). */
type FlagName =
  | 'run'
  | 'state-dir'
  | 'state'
  | 'output'
  | 'var'
  | 'var-file'
  | 'only'
  | 'exclude'
  | 'replace-from'
  | 'max-credits'
  | 'max-jobs';

function camelCase(flag: FlagName): keyof RepeatedFlags {
  return flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase()) as keyof RepeatedFlags;
}

/**
 * The commands the report page names (#33.3, #33.4), with this run's flags: plan and apply without
 * targeting (the page appends `--replace-from FILE`, which refuses `--only`/`--exclude`), and the
 * download-only apply that fetches results this machine lacks.
 */
export function reportCommands(
  target: string,
  flags: RepeatedFlags,
  global: Pick<GlobalOptions, 'simulate' | 'baseUrl' | 'apiKeyFile'>,
): { plan: string; apply: string; downloadOnly: string } {
  const untargeted: RepeatedFlags = { ...flags, only: undefined, exclude: undefined, replaceFrom: undefined };
  return {
    plan: rerunCommand('plan', target, untargeted, global),
    apply: rerunCommand('apply', target, untargeted, global),
    downloadOnly: rerunCommand('apply', target, untargeted, global, ['--download-only']),
  };
}
