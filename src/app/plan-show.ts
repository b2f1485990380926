import { UsageError } from '../errors.js';
import type { CostReport } from '../plan/cost-report.js';
import { collectPayloads } from '../plan/render-payloads.js';
import type { Plan } from '../plan/types.js';
import { parseStringOption } from './parse-options.js';

/** What `plan --show` can add to the report. */
export type ShowOption = 'payloads';
const SHOW_OPTIONS: readonly ShowOption[] = ['payloads'];

/** `--show payloads`, when given; any other value is a usage error. */
export function readShowOption(options: Record<string, unknown>): ShowOption | undefined {
  const value = parseStringOption(options.show);
  if (value === undefined) return undefined;
  if (!SHOW_OPTIONS.includes(value as ShowOption)) {
    throw new UsageError(`--show expects one of ${SHOW_OPTIONS.join(', ')}, received "${value}".`);
  }
  return value as ShowOption;
}

/** The report with every planned job's payload, when `--show payloads` asked for them. */
export function addPayloadsToReport(
  report: CostReport,
  show: ShowOption | undefined,
  plan: Plan,
): CostReport {
  return show === 'payloads' ? { ...report, payloads: collectPayloads(plan.jobs) } : report;
}
