import type { JobState } from '../state/index.js';
import type { CostReport } from './cost-report.js';
import { diffPlanAgainstState, readLastPayloads } from './payload-diff.js';
import type { Plan } from './types.js';
import { isTargeted, type Targeting } from './select-jobs.js';

/** Left-out ids named in a note before "and N more". */
const LISTED_IDS = 5;

/**
 * The report with what targeting did: the `targeting` field for scripts and a note for people (text
 * and markdown renderers print notes), so a plan never hides that jobs were left out. Pure.
 */
export function addTargetingToReport<R extends Pick<CostReport, 'notes' | 'targeting'>>(
  report: R,
  targeting: Targeting | undefined,
  leftOut: readonly string[],
): R {
  if (targeting === undefined || !isTargeted(targeting)) return report;
  const notes = [...report.notes];
  if (leftOut.length > 0) {
    const listed = leftOut.slice(0, LISTED_IDS).join(', ');
    const more = leftOut.length > LISTED_IDS ? ` and ${leftOut.length - LISTED_IDS} more` : '';
    notes.push(
      `${describeFlags(targeting)} left out ${leftOut.length} job${leftOut.length === 1 ? '' : 's'} of the manifest (${listed}${more}): not planned, priced or run.`,
    );
  }
  if (targeting.replace.length > 0) {
    notes.push(`--replace: ${targeting.replace.join(', ')} run again as a new attempt, even if done.`);
  }
  return {
    ...report,
    notes,
    targeting: {
      only: [...targeting.only],
      exclude: [...targeting.exclude],
      replace: [...targeting.replace],
      leftOut: [...leftOut],
    },
  };
}

function describeFlags(targeting: Targeting): string {
  const parts = [
    ...targeting.only.map((glob) => `--only ${glob}`),
    ...targeting.exclude.map((glob) => `--exclude ${glob}`),
  ];
  return parts.length === 0 ? 'Targeting' : parts.join(' ');
}

/** The note saying which jobs targeting left out, when it left any out (for output without the full report). */
export function describeLeftOut(report: Pick<CostReport, 'targeting' | 'notes'>): string | undefined {
  if (report.targeting === undefined || report.targeting.leftOut.length === 0) return undefined;
  return report.notes.find((note) => note.includes(' left out '));
}

/** The report with the field-by-field changes of jobs since the journal last sent them. */
export function addChangesToReport(
  report: CostReport,
  plan: Plan,
  stateJobs: ReadonlyMap<string, JobState>,
): CostReport {
  if (stateJobs.size === 0) return report;
  return { ...report, changes: diffPlanAgainstState(plan.jobs, readLastPayloads(stateJobs)) };
}

/**
 * The previous state without the jobs `--replace` runs again, so the estimate prices them as new
 * jobs instead of skipping them as done.
 */
export function forgetReplacedJobs(
  jobs: ReadonlyMap<string, JobState>,
  replace: readonly string[] | undefined,
): ReadonlyMap<string, JobState> {
  if (replace === undefined || replace.length === 0) return jobs;
  const copy = new Map(jobs);
  for (const id of replace) copy.delete(id);
  return copy;
}
