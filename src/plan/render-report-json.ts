import type { JobCost } from './cost-report.js';
import { roundCredits } from './credits.js';
import { isJobTable, type CostReportView, type JobListView, type JobTable } from './job-table.js';

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

/**
 * A {@link JobTable}'s lines written field by field, as `JSON.stringify(report, null, 2)` writes them:
 * a table's lines all have the report's keys in its order, so no line is checked, and the few
 * distinct kinds, models, states, credits, matrix keys and string values are written to JSON once
 * each. Read from the table's columns (no `JobCost` object per job), the part from `kind` to
 * `matrixValues` made again only when it differs from the row before (jobs of one entry share it).
 * Twice as fast as {@link renderJobsJson} (0.12 s against 0.24 s for 100,000 jobs) before either.
 */
function* renderTableJson(table: JobTable, jobsPerChunk: number): Generator<string> {
  const json = createJsonCache();
  let chunk = '';
  let count = 0;
  let middle = '';
  let kind: string | undefined;
  let model: string | undefined;
  let credits = Number.NaN;
  let state: string | undefined;
  let toRun = false;
  let covered = false;
  for (const row of table.rows()) {
    const { index } = row;
    const rowKind = table.kindAt(index);
    const rowModel = table.modelAt(index);
    const rowCredits = table.creditsAt(index);
    const rowState = table.stateAt(index);
    const rowToRun = table.toRunAt(index);
    const rowCovered = table.coveredAt(index);
    if (
      rowKind !== kind ||
      rowModel !== model ||
      rowCredits !== credits ||
      rowState !== state ||
      rowToRun !== toRun ||
      rowCovered !== covered
    ) {
      kind = rowKind;
      model = rowModel;
      credits = rowCredits;
      state = rowState;
      toRun = rowToRun;
      covered = rowCovered;
      middle =
        `,\n      "kind": ${json(kind)},\n      "model": ${json(model)},` +
        `\n      "credits": ${json(roundCredits(credits))},\n      "state": ${json(state)},` +
        `\n      "toRun": ${toRun},\n      "coveredBySubscription": ${covered},\n      "matrixValues": `;
    }
    chunk +=
      `${count === 0 ? '' : ',\n'}    {\n      "id": ${JSON.stringify(table.idAt(index))}${middle}` +
      renderMatrixValues(row.matrixValues, json);
    // A table's diff parts (when it has them) are plain: a hex hash, a string, an index.
    const { payloadHash } = row;
    if (payloadHash !== undefined) {
      chunk +=
        `,\n      "payloadHash": "${payloadHash}"` +
        (row.promptJson === undefined ? '' : `,\n      "prompt": ${row.promptJson}`) +
        `,\n      "paramsRef": ${table.paramsRefAt(index)}`;
    }
    chunk += '\n    }';
    count++;
    if (count % jobsPerChunk === 0 || chunk.length >= MAX_CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

/**
 * Characters past which a table's chunk is handed on whatever its number of jobs. A string written
 * out is flattened, and one over 128 KB is a large object, which V8 places in the old generation: only
 * a full collection frees it. Chunks of 1,000 jobs (~550 KB with the diff parts) were, and a
 * 1,000,000-job report piled ~140 MB of written chunks up before one ran (236 MB of heap at its end
 * against 105 MB with chunks of 100 jobs). 16,384 characters plus one more job stay under it, two
 * bytes a character included, unless that job's own line nears it (a prompt may be 32,000 characters).
 */
const MAX_CHUNK_CHARS = 16_384;

/** Values a report's JSON writer remembers at most: a matrix axis of a million distinct values must not be. */
const MAX_REMEMBERED_VALUES = 10_000;

/** `JSON.stringify` of strings and numbers, remembered: a report repeats a few values many times. */
function createJsonCache(): (value: string | number) => string {
  const written = new Map<string | number, string>();
  return (value) => {
    let text = written.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      if (written.size < MAX_REMEMBERED_VALUES) written.set(value, text);
    }
    return text;
  };
}

/** `matrixValues` three levels deep, as `JSON.stringify(report, null, 2)` writes it. */
function renderMatrixValues(
  values: JobCost['matrixValues'],
  json: (value: string | number) => string,
): string {
  let text = '';
  for (const key of Object.keys(values)) {
    const value = values[key];
    let written: string | undefined;
    if (typeof value === 'string' || typeof value === 'number') written = json(value);
    else if (typeof value === 'boolean' || value === null) written = String(value);
    // Maps and lists (and anything else): as JSON.stringify writes them, nested one level further.
    else written = JSON.stringify(value, null, 2)?.replaceAll('\n', '\n        ');
    // Like JSON.stringify: a key whose value has no JSON form is left out.
    if (written === undefined) continue;
    text += `${text === '' ? '' : ','}\n        ${json(key)}: ${written}`;
  }
  return text === '' ? '{}' : `{${text}\n      }`;
}
