import { parseNumberOption, parseStringOption } from './values.js';
import { UsageError } from '../../errors.js';
import type { GuardrailLimits } from '../../diff/guardrails.js';
import type { Flags } from './common.js';

/** The formats of `runner diff` and `runner plan --compare-to` (each rendered by ../commands/diff.ts). */
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
  const out = parseStringOption(flags.out);
  return {
    ...(compareTo === undefined ? {} : { compareTo }),
    format: readDiffFormat(flags.format),
    ...(out === undefined ? {} : { out }),
    limits: readGuardrailLimits(flags),
  };
}

/** `--fail-on-increase` and `--fail-on-increase-percent`, checked. */
export function readGuardrailLimits(flags: Flags): GuardrailLimits {
  const increase = parseNumberOption('fail-on-increase', flags.failOnIncrease, { min: 0 });
  const increasePercent = parseNumberOption('fail-on-increase-percent', flags.failOnIncreasePercent, {
    min: 0,
  });
  return {
    ...(increase === undefined ? {} : { increase }),
    ...(increasePercent === undefined ? {} : { increasePercent }),
  };
}
