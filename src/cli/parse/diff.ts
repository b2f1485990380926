import { parseLocalPathOption, parseNumberOption, parseStringOption } from './values.js';
import { UsageError } from '../../errors.js';
import { LIMIT_UNITS, type GuardrailLimits, type LimitUnit } from '../../diff/guardrails.js';
import type { Flags } from './common.js';

/** The formats of `runner diff` and `runner plan --compare-to` (each rendered by ../render/diff-output.ts). */
export const DIFF_FORMATS = ['text', 'json', 'markdown'] as const;

export type DiffFormat = (typeof DIFF_FORMATS)[number];

/** `--format` of a diff, checked. */
export function readDiffFormat(value: unknown): DiffFormat {
  const format = parseStringOption(value) ?? 'text';
  if (!(DIFF_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format expects one of ${DIFF_FORMATS.join(', ')}, received "${format}".`);
  }
  return format as DiffFormat;
}

/** What `runner diff` is asked. */
export interface DiffOptions {
  /** `--compare-to BASE`: the base report, when only the head is an argument. */
  compareTo?: string;
  /** `--format`. */
  format: DiffFormat;
  /** `--out FILE`: also write the diff there. */
  out?: string;
  /** `--fail-on-increase` / `--fail-on-increase-percent`. */
  limits: GuardrailLimits;
}

/** `runner diff` flags → {@link DiffOptions}. */
export function parseDiffOptions(flags: Flags): DiffOptions {
  const compareTo = parseStringOption(flags.compareTo);
  const out = parseLocalPathOption('out', flags.out);
  return {
    ...(compareTo === undefined ? {} : { compareTo }),
    format: readDiffFormat(flags.format),
    ...(out === undefined ? {} : { out }),
    limits: readGuardrailLimits(flags),
  };
}

/** `--fail-on-increase` and `--fail-on-increase-percent`, checked: `N` or `N/UNIT` (#33.7). */
export function readGuardrailLimits(flags: Flags): GuardrailLimits {
  const increase = readLimit('fail-on-increase', flags.failOnIncrease);
  const percent = readLimit('fail-on-increase-percent', flags.failOnIncreasePercent);
  return {
    ...(increase === undefined ? {} : { increase: increase.value }),
    ...(increase?.per === undefined ? {} : { increasePer: increase.per }),
    ...(percent === undefined ? {} : { increasePercent: percent.value }),
    ...(percent?.per === undefined ? {} : { increasePercentPer: percent.per }),
  };
}

/** A limit as written: a number, or a number, `/` and the unit it counts in (`100/night`, `20/month`). */
function readLimit(flag: string, value: unknown): { value: number; per?: LimitUnit } | undefined {
  const text = Array.isArray(value) ? (value.at(-1) as unknown) : value;
  if (typeof text !== 'string' || !text.includes('/')) {
    const number = parseNumberOption(flag, text, { min: 0 });
    return number === undefined ? undefined : { value: number };
  }
  const slash = text.lastIndexOf('/');
  const per = text.slice(slash + 1).trim();
  const number = text.slice(0, slash).trim();
  if (number === '' || !(LIMIT_UNITS as readonly string[]).includes(per)) {
    throw new UsageError(
      `--${flag} expects a number, or a number and its unit (${LIMIT_UNITS.map((unit) => `/${unit}`).join(', ')}), received "${text}".`,
    );
  }
  return { value: parseNumberOption(flag, number, { min: 0 }) ?? 0, per: per as LimitUnit };
}
