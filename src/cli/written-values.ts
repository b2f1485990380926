import { UsageError } from '../errors.js';
import { namesOf, type DeclaredOption } from './flags.js';

/** A declared option as cac keeps it: its raw name and, for repeatable ones, `type: [String]`. */
export interface DeclaredValueOption extends DeclaredOption {
  config?: { type?: unknown };
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
