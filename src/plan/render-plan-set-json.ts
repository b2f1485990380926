import type { CostReportView } from './job-table.js';
import { renderReportJsonChunks } from './render-report-json.js';

/** What `kind` a plan set document carries (`runner plan a.yaml b.yaml --format json`). */
export const PLAN_SET_KIND = 'runner-plan-set';
/** The version of the plan set's shape: `kind`, `schemaVersion`, `credits`, `plans` (each a plan report). */
export const PLAN_SET_VERSION = 1;

/**
 * Several manifests' plan reports as one JSON document, in pieces (each report as
 * `renderReportJsonChunks` writes it, one level further in), with their sum first:
 * `{ kind: "runner-plan-set", schemaVersion: 1, credits: { total, perMonth }, plans: [report, …] }`.
 * `perMonth` sums the manifests with a schedule (`null` when none has one).
 */
export function* renderPlanSetJsonChunks(
  reports: readonly CostReportView[],
  sum: { credits: number; creditsPerMonth: number | null },
): Generator<string> {
  const head = JSON.stringify(
    {
      kind: PLAN_SET_KIND,
      schemaVersion: PLAN_SET_VERSION,
      credits: { total: sum.credits, perMonth: sum.creditsPerMonth },
    },
    null,
    2,
  );
  yield `${head.slice(0, -2)},\n  "plans": [`;
  let first = true;
  for (const report of reports) {
    yield first ? '\n    ' : ',\n    ';
    first = false;
    for (const chunk of renderReportJsonChunks(report)) yield chunk.replaceAll('\n', '\n    ');
  }
  yield reports.length === 0 ? ']\n}' : '\n  ]\n}';
}
