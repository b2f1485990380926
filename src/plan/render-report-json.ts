import type { JobCost } from './cost-report.js';
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
    chunk += renderJobJson(job);
    chunk += index === last ? '\n' : ',\n';
    index++;
    if (index % jobsPerChunk === 0 || index > last) {
      yield chunk;
      chunk = '';
    }
  }
  yield `  ]${text.slice(at + JOB_LIST_MARK.length)}`;
}

/** The keys of a `JobCost` in the order the report writes them. */
const JOB_COST_KEYS = 'id,kind,model,credits,state,toRun,coveredBySubscription,matrixValues';

/**
 * One job of the list, two levels deep (its lines indented by four spaces), as `JSON.stringify(report,
 * null, 2)` writes it. A job with the report's own keys in the report's order is written field by
 * field, about four times faster; anything else goes through `JSON.stringify`.
 */
function renderJobJson(job: JobCost): string {
  if (!hasReportShape(job)) {
    return `    ${JSON.stringify(job, null, 2).replaceAll('\n', '\n    ')}`;
  }
  return (
    `    {\n      "id": ${JSON.stringify(job.id)},\n      "kind": ${JSON.stringify(job.kind)},` +
    `\n      "model": ${JSON.stringify(job.model)},\n      "credits": ${JSON.stringify(job.credits)},` +
    `\n      "state": ${JSON.stringify(job.state)},\n      "toRun": ${job.toRun},` +
    `\n      "coveredBySubscription": ${job.coveredBySubscription},` +
    `\n      "matrixValues": ${renderMatrixValues(job.matrixValues)}\n    }`
  );
}

function hasReportShape(job: JobCost): boolean {
  let keys = '';
  for (const key in job) keys = keys === '' ? key : `${keys},${key}`;
  return (
    Object.getPrototypeOf(job) === Object.prototype &&
    keys === JOB_COST_KEYS &&
    typeof job.id === 'string' &&
    typeof job.kind === 'string' &&
    typeof job.model === 'string' &&
    typeof job.credits === 'number' &&
    typeof job.state === 'string' &&
    typeof job.toRun === 'boolean' &&
    typeof job.coveredBySubscription === 'boolean' &&
    typeof job.matrixValues === 'object' &&
    job.matrixValues !== null
  );
}

/** `matrixValues` three levels deep, as `JSON.stringify(report, null, 2)` writes it. */
function renderMatrixValues(values: JobCost['matrixValues']): string {
  if (Object.getPrototypeOf(values) !== Object.prototype || 'toJSON' in values) {
    return JSON.stringify(values, null, 2).replaceAll('\n', '\n      ');
  }
  let text = '';
  for (const key of Object.keys(values)) {
    const value = values[key];
    const written =
      typeof value === 'object' && value !== null
        ? JSON.stringify(value, null, 2).replaceAll('\n', '\n        ')
        : JSON.stringify(value);
    // Like JSON.stringify: a key whose value has no JSON form is left out.
    if (written === undefined) continue;
    text += `${text === '' ? '' : ','}\n        ${JSON.stringify(key)}: ${written}`;
  }
  return text === '' ? '{}' : `{${text}\n      }`;
}
