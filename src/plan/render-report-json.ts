import type { JobCost } from './cost-report.js';
import { isJobTable, type CostReportView, type JobListView } from './job-table.js';
import { renderTableJson } from './render-table-json.js';

/** Stands in for the job list. Ids cannot hold control characters, and no slug or message is this string. */
const JOB_LIST_SENTINEL = '\u0000jobList\u0000';
const JOB_LIST_MARK = JSON.stringify(JOB_LIST_SENTINEL);

/**
 * The JSON report in pieces, byte for byte what `JSON.stringify(report, null, 2)` gives, without ever
 * holding the whole text (nor, with a `JobTable`, every job object): a 100,000-job report is ~30 MB of
 * JSON, and one string of it (plus the intermediate copies `JSON.stringify` makes) roughly doubled
 * `runner plan --format json`'s peak memory.
 */
export function* renderReportJsonChunks(report: CostReportView, jobsPerChunk = 1000): Generator<string> {
  const text = JSON.stringify({ ...report, jobList: JOB_LIST_SENTINEL }, null, 2);
  const at = text.indexOf(JOB_LIST_MARK);
  if (report.jobList.length === 0) {
    yield `${text.slice(0, at)}[]${text.slice(at + JOB_LIST_MARK.length)}`;
    return;
  }
  yield `${text.slice(0, at)}[\n`;
  if (isJobTable(report.jobList)) yield* renderTableJson(report.jobList, jobsPerChunk);
  else yield* renderListJson(report.jobList, jobsPerChunk);
  yield `\n  ]${text.slice(at + JOB_LIST_MARK.length)}`;
}

/** Any job list: each batch of jobs through {@link renderJobsJson}. */
function* renderListJson(list: JobListView, jobsPerChunk: number): Generator<string> {
  let batch: JobCost[] = [];
  let first = true;
  for (const job of list) {
    batch.push(job);
    if (batch.length === jobsPerChunk) {
      yield renderJobsJson(batch, first);
      first = false;
      batch = [];
    }
  }
  if (batch.length > 0) yield renderJobsJson(batch, first);
}

/**
 * Jobs of the list, two levels deep (lines indented by four spaces), joined by commas, as
 * `JSON.stringify(report, null, 2)` writes them: one native `JSON.stringify` of the batch as an array
 * (its items one level deep) moved one level further in, for a list whose lines may have any shape
 * (~0.24 s for 100,000 jobs: `JSON.stringify` with indentation is V8's slow path).
 */
function renderJobsJson(jobs: JobCost[], first: boolean): string {
  const array = JSON.stringify(jobs, null, 2);
  // "[\n  {…},\n  {…}\n]": drop the brackets, indent every line by two more spaces.
  const items = `  ${array.slice(2, -2).replaceAll('\n', '\n  ')}`;
  return first ? items : `,\n${items}`;
}
