import { UsageError } from '../errors.js';
import { suggestClosest } from '../suggest.js';

/** The part of a cac option this module reads: `'--state-dir <dir>'`, `'--yes, -y'`, `'--no-color'`. */
export interface DeclaredOption {
  rawName: string;
}

/**
 * Which global flags each command reads. A global flag that a command ignores is hidden from its help
 * and, when given, named in a warning rather than silently dropped (issue #7.7); it is not an error, so
 * a script may pass the same connection flags to every command. `--no-color` works everywhere;
 * commands missing here (added later) read every global flag.
 */
const SERVICE_FLAGS = ['base-url', 'api-key-file', 'simulate', 'sim-time-scale', 'log-file'];
export const GLOBAL_FLAGS_BY_COMMAND: Readonly<Record<string, readonly string[]>> = {
  models: SERVICE_FLAGS,
  balance: SERVICE_FLAGS,
  validate: SERVICE_FLAGS,
  plan: SERVICE_FLAGS,
  apply: SERVICE_FLAGS,
  status: [],
  state: [],
  simulate: [],
  runs: [],
  // Compares two plan reports: no service, no key.
  diff: [],
  // They read no service, but the API key's value, to keep it out of what they render.
  render: ['api-key-file'],
  report: ['api-key-file'],
  // It talks to GitHub, not the service.
  comment: [],
  help: [],
};
const ALWAYS = new Set(['no-color', 'color', 'help', 'h', 'version', 'v']);

/** The flag names of a declared option, without dashes: `'--yes, -y'` → `['yes', 'y']`. */
export function namesOf(option: DeclaredOption): string[] {
  const names: string[] = [];
  for (const part of option.rawName.split(',')) {
    const name = part.trim().split(/\s/)[0]?.replace(/^-+/, '');
    if (name === undefined || name === '') continue;
    names.push(name);
    // cac reads `--no-x` as x=false and also accepts `--x`.
    if (name.startsWith('no-')) names.push(name.slice(3));
  }
  return names;
}

/**
 * The flags written on the command line, as written (`state-dri`, not cac's `stateDri`), up to a
 * bare `--`. Short flags are split (`-yh` → `y`, `h`).
 */
export function writtenFlags(argv: readonly string[]): string[] {
  const flags: string[] = [];
  for (const token of argv) {
    if (token === '--') break;
    if (token.startsWith('--')) flags.push(token.slice(2).split('=')[0] ?? '');
    else if (/^-[A-Za-z]/.test(token)) flags.push(...token.slice(1).split('=')[0]!.split(''));
  }
  return flags;
}

/**
 * cac (mri) reads `--max-credits -5` as two flags. A value flag followed by a negative number gets
 * it as its value (`--max-credits=-5`), so the range check can name the flag and the value.
 */
export function joinNegativeValues(argv: readonly string[], options: readonly DeclaredOption[]): string[] {
  const takesValue = new Set<string>();
  for (const option of options) {
    if (/[<[]/.test(option.rawName)) for (const name of namesOf(option)) takesValue.add(name);
  }
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index] ?? '';
    const next = argv[index + 1];
    const name = token.startsWith('--') && !token.includes('=') ? token.slice(2) : undefined;
    if (name !== undefined && takesValue.has(name) && next !== undefined && /^-\d|^-\.\d/.test(next)) {
      joined.push(`${token}=${next}`);
      index++;
    } else joined.push(token);
  }
  return joined;
}

/**
 * Refuses flags the command does not know, by the name the user wrote, with the nearest known one.
 * Returns a warning for each global flag the command ignores.
 */
export function checkWrittenFlags(input: {
  command: string;
  argv: readonly string[];
  commandOptions: readonly DeclaredOption[];
  globalOptions: readonly DeclaredOption[];
}): string[] {
  const warnings: string[] = [];
  const own = new Set(input.commandOptions.flatMap(namesOf));
  const globals = new Set(input.globalOptions.flatMap(namesOf));
  const used = GLOBAL_FLAGS_BY_COMMAND[input.command];
  const known = [...own, ...globals].filter((name) => name.length > 1);
  const given = writtenFlags(input.argv);
  for (const flag of given) {
    if (own.has(flag) || ALWAYS.has(flag)) continue;
    const written = flag.length === 1 ? `-${flag}` : `--${flag}`;
    if (globals.has(flag)) {
      if (used === undefined || used.includes(flag)) continue;
      warnings.push(`${written} has no effect on \`runner ${input.command}\`; it is ignored.`);
      continue;
    }
    const nearest = suggestClosest(flag, known);
    const json = flag === 'json' && own.has('format') ? 'JSON output is `--format json` here. ' : '';
    throw new UsageError(`Unknown option \`${written}\` for \`runner ${input.command}\`.`, {
      hint:
        nearest === undefined || json !== ''
          ? `${json}See \`runner ${input.command} --help\`.`
          : `Did you mean \`--${nearest}\`? See \`runner ${input.command} --help\`.`,
    });
  }
  const readsScale = used === undefined || used.includes('sim-time-scale');
  if (readsScale && given.includes('sim-time-scale') && !given.includes('simulate')) {
    warnings.push('--sim-time-scale has no effect without --simulate; it is ignored.');
  }
  return warnings;
}

/**
 * Fixes cac's help text for one command: global flags the command ignores are left out, and negated
 * flags (`--no-color`) lose cac's "(default: true)", which reads as if the negation were on by default.
 */
export function tidyHelpOptions(command: string | undefined, body: string): string {
  const used = command === undefined ? undefined : GLOBAL_FLAGS_BY_COMMAND[command];
  return body
    .split('\n')
    .filter((line) => {
      if (used === undefined) return true;
      const flag = /^\s+--([a-z0-9-]+)/.exec(line)?.[1];
      return flag === undefined || !isGlobalFlag(flag) || used.includes(flag) || ALWAYS.has(flag);
    })
    .map((line) => (/^\s+--no-/.test(line) ? line.replace(/\s*\(default: true\)\s*$/, '') : line))
    .join('\n');
}

const GLOBAL_NAMES = new Set(SERVICE_FLAGS);
function isGlobalFlag(flag: string): boolean {
  return GLOBAL_NAMES.has(flag);
}
