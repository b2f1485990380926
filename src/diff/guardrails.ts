import { formatCredits } from '../plan/credits.js';
import type { CostDiff, GuardrailCheck } from './cost-diff.js';

/** `--fail-on-increase` and `--fail-on-increase-percent`, when given. */
export interface GuardrailLimits {
  /** Credits the change may add. */
  increase?: number;
  /** Percent the change may add. */
  increasePercent?: number;
}

/**
 * Checks the limits against the diff's total: per month when every manifest has a schedule (what the
 * bill is), else per run. A limit is crossed when the increase is strictly above it. With a base
 * that costs nothing, the percentage is taken as 100 % for any increase (there is no percentage of
 * nothing). Pure: the caller exits 3 when any check is crossed.
 */
export function checkGuardrails(diff: CostDiff, limits: GuardrailLimits): GuardrailCheck[] {
  const monthly =
    diff.totalPerMonth !== null && diff.manifests.every((manifest) => manifest.perMonth !== null);
  const figure = monthly ? diff.totalPerMonth! : diff.total;
  const per = monthly ? 'per month' : 'per run';
  const checks: GuardrailCheck[] = [];
  if (limits.increase !== undefined) {
    const actual = figure.delta;
    checks.push({
      limit: 'increase',
      threshold: limits.increase,
      actual,
      crossed: actual > limits.increase,
      message: `${actual >= 0 ? 'adds' : 'saves'} ${formatCredits(Math.abs(actual))} credits ${per}; the limit is ${formatCredits(limits.increase)}`,
    });
  }
  if (limits.increasePercent !== undefined) {
    const actual = figure.percent ?? (figure.delta > 0 ? 100 : 0);
    const base =
      figure.percent === null && figure.delta > 0 ? ' (the base costs nothing, counted as 100 %)' : '';
    checks.push({
      limit: 'increase-percent',
      threshold: limits.increasePercent,
      actual,
      crossed: actual > limits.increasePercent,
      message: `${actual >= 0 ? '+' : ''}${actual} % ${per}${base}; the limit is ${limits.increasePercent} %`,
    });
  }
  return checks;
}
