import { parseLocalPathOption, parseStringOption } from './values.js';
import type { PlanManyOptions } from '../../app/plan-many.js';
import { SHOW_OPTIONS, type ShowOption } from '../../app/plan-show.js';
import { PLAN_FORMATS, type PlanFormat, type PlanOptions } from '../../app/plan.js';
import { UsageError } from '../../errors.js';
import { readRunPlanFlags, type Flags } from './common.js';
import { readDiffFormat, readGuardrailLimits } from './diff.js';

/** Whether `runner plan` was asked for more than one manifest's report: several, a glob, or a diff. */
export function wantsPlanSet(args: readonly string[], flags: Flags): boolean {
  return (
    args.length > 1 ||
    args.some((arg) => /[*?]/.test(arg)) ||
    flags.compareTo !== undefined ||
    // A side of a diff that may have no manifest: a plan set (of none, or of the one).
    flags.allowEmpty === true ||
    flags.catalogFallback !== undefined
  );
}

/** `runner plan FILE` flags → {@link PlanOptions}. */
export function parsePlanOptions(flags: Flags): PlanOptions {
  const runPlan = readRunPlanFlags(flags);
  // Read by a plan set's diff only (`--compare-to`), but a value it could not read is refused here too.
  readGuardrailLimits(flags);
  const format = readPlanFormat(flags.format);
  const show = readShowOption(flags.show);
  const offline = readOffline(flags);
  const out = parseLocalPathOption('out', flags.out);
  const outPlan = typeof flags.outPlan === 'string' ? flags.outPlan : undefined;
  return {
    ...runPlan,
    format,
    ...(out === undefined ? {} : { out }),
    ...(outPlan === undefined ? {} : { outPlan }),
    ...(show === undefined ? {} : { show }),
    offline,
    diffData: flags.format === 'json' || typeof flags.compareTo === 'string',
  };
}

/**
 * `runner plan a.yaml b.yaml` / a glob / `--compare-to` flags → {@link PlanManyOptions}: `--format` is
 * the diff's with `--compare-to` (checked first), else the plan set's; flags that plan one manifest
 * at a time are refused.
 */
export function parsePlanManyOptions(flags: Flags): PlanManyOptions {
  const runPlan = readRunPlanFlags(flags);
  const compareTo = parseStringOption(flags.compareTo);
  const diffFormat = compareTo === undefined ? undefined : readDiffFormat(flags.format);
  for (const flag of ['outPlan', 'show'] as const) {
    if (flags[flag] !== undefined) {
      const name = flag === 'outPlan' ? '--out-plan' : '--show';
      throw new UsageError(
        `${name} plans one manifest at a time; it cannot be used with several manifests, a glob or --compare-to.`,
      );
    }
  }
  const limits = readGuardrailLimits(flags);
  if (compareTo === undefined && (limits.increase !== undefined || limits.increasePercent !== undefined)) {
    throw new UsageError('--fail-on-increase and --fail-on-increase-percent need --compare-to BASE.json.');
  }
  const format = diffFormat ?? readPlanFormat(flags.format);
  const offline = readOffline(flags);
  const out = parseLocalPathOption('out', flags.out);
  const catalogFallback = parseStringOption(flags.catalogFallback);
  if (catalogFallback !== undefined && parseStringOption(flags.catalog) === undefined) {
    throw new UsageError(
      '--catalog-fallback FILE stands in for a missing --catalog FILE; give --catalog too.',
    );
  }
  return {
    ...runPlan,
    ...(compareTo === undefined ? {} : { compareTo }),
    limits,
    format,
    ...(out === undefined ? {} : { out }),
    offline,
    allowEmpty: flags.allowEmpty === true,
    ...(catalogFallback === undefined ? {} : { catalogFallback }),
    diffData: flags.format === 'json' || typeof flags.compareTo === 'string',
  };
}

function readPlanFormat(value: unknown): PlanFormat {
  const format = parseStringOption(value) ?? 'text';
  if (!(PLAN_FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format expects one of ${PLAN_FORMATS.join(', ')}, received "${format}".`);
  }
  return format as PlanFormat;
}

/** `--show payloads`, when given; any other value is a usage error. */
function readShowOption(value: unknown): ShowOption | undefined {
  const show = parseStringOption(value);
  if (show === undefined) return undefined;
  if (!SHOW_OPTIONS.includes(show as ShowOption)) {
    throw new UsageError(`--show expects one of ${SHOW_OPTIONS.join(', ')}, received "${show}".`);
  }
  return show as ShowOption;
}

/** `--offline`, which needs `--catalog FILE`. */
function readOffline(flags: Flags): boolean {
  const offline = flags.offline === true;
  if (offline && parseStringOption(flags.catalog) === undefined) {
    throw new UsageError('--offline needs --catalog FILE (save one with `runner models --json > FILE`).');
  }
  return offline;
}
