import type { CostReportView } from './job-table.js';

/** Stands in for the job list. Ids cannot hold control characters, and no slug or message is this string. */
const JOB_LIST_SENTINEL = '\u0000jobList\u0000';
const JOB_LIST_MARK = JSON.stringify(JOB_LIST_SENTINEL);

/**
 * The JSON report in pieces, byte for byte what `JSON.stringify(report, null, 2)` gives, without ever
 * holding the whole text (nor, with a `JobTable`, every job object): a 100,000-job report is ~30 MB of JSON, and one string of it (plus the
 * intermediate copies `JSON.stringify` makes) roughly doubled `runner plan --format json`'s peak memory.
 */
export function* renderReportJsonChunks(report: CostReportView, jobsPerChunk = 1000): Generator<string> {
  const text = JSON.stringify({ ...report, jobList: JOB_LIST_SENTINEL }, null, 2);
  const at = text.indexOf(JOB_LIST_MARK);
  if (report.jobList.length === 0) {
    yield `${text.slice(0, at)}[]${text.slice(at + JOB_LIST_MARK.length)}`;
    return;
  }
  yield `${text.slice(0, at)}[\n`;
  const last = report.jobList.length - 1;
  let index = 0;
  let chunk = '';
  for (const job of report.jobList) {
    // Each element sits two levels deep: its lines are indented by four spaces.
    chunk += `    ${JSON.stringify(job, null, 2).replaceAll('\n', '\n    ')}`;
    chunk += index === last ? '\n' : ',\n';
    index++;
    if (index % jobsPerChunk === 0 || index > last) {
      yield chunk;
      chunk = '';
    }
  }
  yield `  ]${text.slice(at + JOB_LIST_MARK.length)}`;
}
