import type { CostReport } from '../plan/cost-report.js';
import { collectPayloads } from '../plan/render-payloads.js';
import type { Plan } from '../plan/types.js';

/** What `plan --show` can add to the report. */
export type ShowOption = 'payloads';
export const SHOW_OPTIONS: readonly ShowOption[] = ['payloads'];

/** The report with every planned job's payload, when `--show payloads` asked for them. */
export function addPayloadsToReport(
  report: CostReport,
  show: ShowOption | undefined,
  plan: Plan,
): CostReport {
  return show === 'payloads' ? { ...report, payloads: collectPayloads(plan.jobs) } : report;
}
