import type { CostReport } from './cost-report.js';

/** Stands in for the job list. Ids cannot hold control characters, and no slug or message is this string. */
const JOB_LIST_SENTINEL = '\u0000jobList\u0000';
const JOB_LIST_MARK = JSON.stringify(JOB_LIST_SENTINEL);

/**
 * The JSON report in pieces, byte for byte what `JSON.stringify(report, null, 2)` gives, without ever
 * holding the whole text: a 100,000-job report is ~30 MB of JSON, and one string of it (plus the
 * intermediate copies `JSON.stringify` makes) roughly doubled `runner plan --format json`'s peak memory.
 */
export function* renderReportJsonChunks(report: CostReport, jobsPerChunk = 1000): Generator<string> {
  const text = JSON.stringify({ ...report, jobList: JOB_LIST_SENTINEL }, null, 2);
  const at = text.indexOf(JOB_LIST_MARK);
  if (report.jobList.length === 0) {
    yield `${text.slice(0, at)}[]${text.slice(at + JOB_LIST_MARK.length)}`;
    return;
  }
  yield `${text.slice(0, at)}[\n`;
  for (let start = 0; start < report.jobList.length; start += jobsPerChunk) {
    const end = Math.min(report.jobList.length, start + jobsPerChunk);
    let chunk = '';
    for (let index = start; index < end; index++) {
      // Each element sits two levels deep: its lines are indented by four spaces.
      chunk += `    ${JSON.stringify(report.jobList[index], null, 2).replaceAll('\n', '\n    ')}`;
      chunk += index === report.jobList.length - 1 ? '\n' : ',\n';
    }
    yield chunk;
  }
  yield `  ]${text.slice(at + JOB_LIST_MARK.length)}`;
}
