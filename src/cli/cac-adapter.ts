import { UsageError } from '../errors.js';
import { suggestClosest } from '../suggest.js';
import { SERVICE_FLAGS } from './commands/command.js';

/**
 * What cac 7.1 (with mri inside) does not do as the runner needs, put right in this one module; each
 * workaround has a test (test/unit/cli/cac-adapter.test.ts) that fails once cac no longer needs it:
 *
 * - values are read as numbers when they look like one, `type: [String]` included (`--run 007` →
 *   "7", `--state-dir 007` → 7), an empty value becomes 0 and a missing one `true`:
 *   {@link readWrittenValues} and {@link keepValuesAsWritten} put back the values as written;
 * - a value starting with `-` is read as flags (`--max-credits -5` → `-5` unknown):
 *   {@link joinNegativeValues};
 * - its unknown-option check names the camelCased key (`--stateDri` for `--state-dri`), suggests
 *   nothing, and cannot tell a global flag a command ignores: {@link checkWrittenFlags};
 * - its help shows "(default: true)" on `--no-x` flags: {@link tidyHelpOptions}.
 */

/** The part of a cac option this module reads: `'--state-dir <dir>'`, `'--yes, -y'`, `'--no-color'`. */
export interface DeclaredOption {
  rawName: string;
}

/** A declared option as cac keeps it: its raw name and, for repeatable ones, `type: [String]`. */
export interface DeclaredValueOption extends DeclaredOption {
  config?: { type?: unknown };
}

/** Global flags a command may ignore; it says which it reads (src/cli/commands/command.ts). */
const SERVICE_FLAG_NAMES: ReadonlySet<string> = new Set(SERVICE_FLAGS);
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
 * Returns a warning for each global flag the command ignores (`readsGlobals`: the service flags it
 * reads; absent, all of them): not an error, so a script may pass the same connection flags to every
 * command (issue #7.7).
 */
export function checkWrittenFlags(input: {
  command: string;
  argv: readonly string[];
  commandOptions: readonly DeclaredOption[];
  globalOptions: readonly DeclaredOption[];
  readsGlobals?: readonly string[];
}): string[] {
  const warnings: string[] = [];
  const own = new Set(input.commandOptions.flatMap(namesOf));
  const globals = new Set(input.globalOptions.flatMap(namesOf));
  const used = input.readsGlobals;
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
 * Fixes cac's help text for one command: global flags the command ignores (`readsGlobals`, absent in
 * the general help) are left out, and negated flags (`--no-color`) lose cac's "(default: true)",
 * which reads as if the negation were on by default.
 */
export function tidyHelpOptions(readsGlobals: readonly string[] | undefined, body: string): string {
  const used = readsGlobals;
  return body
    .split('\n')
    .filter((line) => {
      if (used === undefined) return true;
      const flag = /^\s+--([a-z0-9-]+)/.exec(line)?.[1];
      return flag === undefined || !SERVICE_FLAG_NAMES.has(flag) || used.includes(flag) || ALWAYS.has(flag);
    })
    .map((line) => (/^\s+--no-/.test(line) ? line.replace(/\s*\(default: true\)\s*$/, '') : line))
    .join('\n');
}

/**
 * The values of value flags exactly as written, by flag name (`state-dir` → `['0012']`), up to a bare
 * `--`. An empty value (`--run ""`, `--run=`: typically an unset shell variable) and a required value
 * that is missing (`--run` last, or followed by another flag) are usage errors naming the flag: cac
 * would turn the first into `0` and the second into `true`, so an unset `$RUN` would quietly resume
 * a run called "0" and `--state-dir ""` would fall back to the default folder.
 */
export function readWrittenValues(
  argv: readonly string[],
  declared: readonly DeclaredValueOption[],
): Map<string, string[]> {
  const required = new Set<string>();
  const optional = new Set<string>();
  for (const option of declared) {
    const into = /</.test(option.rawName) ? required : /\[/.test(option.rawName) ? optional : undefined;
    for (const name of namesOf(option)) into?.add(name);
  }
  const values = new Map<string, string[]>();
  for (let index = 0; index < argv.length; index++) {
    const token = argv[index] ?? '';
    if (token === '--') break;
    if (!token.startsWith('--')) continue;
    const equals = token.indexOf('=');
    const name = token.slice(2, equals < 0 ? undefined : equals);
    if (!required.has(name) && !optional.has(name)) continue;
    let value: string | undefined;
    if (equals >= 0) value = token.slice(equals + 1);
    else {
      const next = argv[index + 1];
      // cac leaves a value that starts with `-` to be read as a flag (negative numbers were joined
      // to their flag as `--flag=-5` before, by joinNegativeValues).
      if (next !== undefined && !next.startsWith('-')) {
        value = next;
        index++;
      }
    }
    if (value === undefined) {
      if (required.has(name)) {
        throw new UsageError(`--${name} expects a value; none was given.`, {
          hint: `Write it as \`--${name} VALUE\` (a value that starts with "-" goes as \`--${name}=VALUE\`).`,
        });
      }
      continue;
    }
    if (value.trim() === '') {
      throw new UsageError(`--${name} expects a value, received an empty one (${JSON.stringify(value)}).`, {
        hint: 'Is a shell variable unset? Nothing was read from or written to the service.',
      });
    }
    values.set(name, [...(values.get(name) ?? []), value]);
  }
  return values;
}

/**
 * Puts back the values of value flags as written into cac's parsed options: cac turns
 * numeric-looking text into numbers (`--state-dir 007` → 7, `--out 2026` → 2026, which then read as
 * "no such option given") and a repeated single-value flag into an array. Repeatable flags (`type:
 * [String]`) get every value; the others the last one. Numeric flags are parsed from the text by
 * parseNumberOption, with the text in their messages.
 */
export function keepValuesAsWritten(
  parsed: Record<string, unknown>,
  written: ReadonlyMap<string, readonly string[]>,
  declared: readonly DeclaredValueOption[],
): void {
  const repeatable = new Set<string>();
  for (const option of declared)
    if (Array.isArray(option.config?.type)) for (const name of namesOf(option)) repeatable.add(name);
  for (const [name, values] of written) {
    const key = name.replace(
      /([a-z])-([a-z])/g,
      (_, before: string, after: string) => before + after.toUpperCase(),
    );
    parsed[key] = repeatable.has(name) ? [...values] : values[values.length - 1];
  }
}
