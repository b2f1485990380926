import type { ScheduleSpec } from '../manifest/types.js';
import type { PlanSchedule } from './cost-report.js';

/**
 * Runs per month of each named frequency: a month counted as 30 days, a week as 52.14 weeks a year over
 * 12 months (≈ 4.35, as cloud cost tools count it), an hour as 24 × 30.
 */
export const RUNS_PER_MONTH = { nightly: 30, daily: 30, weekly: 4.35, hourly: 720 } as const;

/** A manifest `schedule` (checked by the schema) as the report shows it. */
export function readSchedule(spec: ScheduleSpec): PlanSchedule {
  if (typeof spec === 'string') return { label: spec, runsPerMonth: RUNS_PER_MONTH[spec] };
  return { label: `${spec.runsPerMonth} per month`, runsPerMonth: spec.runsPerMonth };
}
