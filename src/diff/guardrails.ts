import { UsageError } from '../errors.js';
import { formatCredits } from '../plan/credits.js';
import type { CostDiff, GuardrailCheck } from './cost-diff.js';
import { runUnit, SCHEDULE_RUN_WORDS } from './run-unit.js';

/**
 * The unit a limit counts in (`--fail-on-increase 100/night`): `run`, `month`, or the word of the
 * manifests' one schedule (`night`, `day`, `week`, `hour`), which is a run of that schedule.
 */
export type LimitUnit = 'run' | 'month' | 'night' | 'day' | 'week' | 'hour';

export const LIMIT_UNITS: readonly LimitUnit[] = ['run', 'month', 'night', 'day', 'week', 'hour'];

/** `--fail-on-increase` and `--fail-on-increase-percent`, when given. */
export interface GuardrailLimits {
  /** Credits the change may add. */
  increase?: number;
  /** `--fail-on-increase N/UNIT`: what `increase` counts; absent for a bare number (see {@link checkGuardrails}). */
  increasePer?: LimitUnit;
  /** Percent the change may add. */
  increasePercent?: number;
  /** `--fail-on-increase-percent N/UNIT`, as `increasePer`. */
  increasePercentPer?: LimitUnit;
}

/**
 * Checks the limits against the diff's total, in the unit each was given (#33.7): `/run` (or the
 * manifests' schedule word: `/night` when every manifest is nightly) counts per run, `/month` per
 * month. A bare number keeps its first meaning, per month when every manifest has a schedule (what the
 * bill is), else per run; each check says the unit it used, and a bare limit counted per month says
 * how to count per run. A limit is crossed when the increase is strictly above it. With a base that
 * costs nothing, the percentage is taken as 100 % for any increase (there is no percentage of
 * nothing). Pure: the caller exits 3 when any check is crossed; a unit the diff cannot count in is a
 * usage error (exit 2).
 */
export function checkGuardrails(diff: CostDiff, limits: GuardrailLimits): GuardrailCheck[] {
  const checks: GuardrailCheck[] = [];
  if (limits.increase !== undefined) {
    const { figure, per, note } = countIn(diff, 'fail-on-increase', limits.increase, limits.increasePer);
    const actual = figure.delta;
    checks.push({
      limit: 'increase',
      threshold: limits.increase,
      per,
      actual,
      crossed: actual > limits.increase,
      message: `${actual >= 0 ? 'adds' : 'saves'} ${formatCredits(Math.abs(actual))} credits per ${per}; the limit is ${formatCredits(limits.increase)} per ${per}${note}`,
    });
  }
  if (limits.increasePercent !== undefined) {
    const { increasePercent: limit, increasePercentPer: given } = limits;
    const { figure, per, note } = countIn(diff, 'fail-on-increase-percent', limit, given);
    const actual = figure.percent ?? (figure.delta > 0 ? 100 : 0);
    const base =
      figure.percent === null && figure.delta > 0 ? ' (the base costs nothing, counted as 100 %)' : '';
    checks.push({
      limit: 'increase-percent',
      threshold: limit,
      per,
      actual,
      crossed: actual > limit,
      message: `${actual >= 0 ? '+' : ''}${actual} % per ${per}${base}; the limit is ${limit} %${note}`,
    });
  }
  return checks;
}

/** The figure a limit is compared with, the unit it counts in, and a note for a bare limit counted per month. */
function countIn(
  diff: CostDiff,
  flag: string,
  value: number,
  given: LimitUnit | undefined,
): { figure: CostDiff['total']; per: string; note: string } {
  const everyScheduled =
    diff.totalPerMonth !== null && diff.manifests.every((manifest) => manifest.perMonth !== null);
  const run = runUnit(diff);
  if (given === undefined) {
    if (!everyScheduled) return { figure: diff.total, per: run, note: '' };
    return {
      figure: diff.totalPerMonth!,
      per: 'month',
      note: ` (a bare limit counts per month when every manifest has a schedule; --${flag} ${value}/${run} counts per ${run})`,
    };
  }
  if (given === 'month') {
    if (!everyScheduled) {
      const scheduled = diff.manifests.filter((manifest) => manifest.perMonth !== null).length;
      throw new UsageError(
        `--${flag} ${value}/month: ${scheduled} of the ${diff.manifests.length} manifests have a schedule, so the change cannot be counted per month; use ${value}/run.`,
      );
    }
    return { figure: diff.totalPerMonth!, per: 'month', note: '' };
  }
  if (given !== 'run' && given !== run) {
    const runsOn =
      run === 'run'
        ? 'the manifests do not all run on one schedule'
        : `the manifests run once a ${run}: use ${value}/${run}`;
    throw new UsageError(
      `--${flag} ${value}/${given}: ${runsOn}, or ${value}/run or ${value}/month (${SCHEDULE_RUN_WORDS.join(', ')} name a run of the manifests' one schedule).`,
    );
  }
  return { figure: diff.total, per: given === 'run' ? run : given, note: '' };
}
