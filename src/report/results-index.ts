import { isAbsolute, relative, sep } from 'node:path';
import { matrixValueText } from '../manifest/expand-matrix.js';
import { canonicalJson } from '../canonical-json.js';
import type { MatrixValue } from '../manifest/types.js';
import { piecesOf, type PiecewiseFormat } from './piecewise-text.js';
import { reportStatusOf, type ReportData, type ReportEntry, type ReportStatus } from './report-data.js';

/**
 * `results.json`, written beside the downloads by every apply (version 2):
 * ```
 * { schemaVersion: 2, pipeline, runId, generatedAt, axes: string[],
 *   results: [{ id, fileIndex?, status, matrix: { axis: value }, prompt?, model, kind, params,
 *               attempts, credits, failureKind?, error?, advice?, notBefore?, serviceJobId?, machine?,
 *               file?, bytes?, sha256?, resultUrl?, resultUrlExpiresAt? }] }
 * ```
 * One row per job of the manifest, in manifest order, and one per result file for a job that has
 * results (`fileIndex` 1, 2...; a job without results has no `fileIndex`). `status` is the job's:
 * `done`, `downloading` (done, but some result is not on disk), `failed`, `deferred`, `uncertain`,
 * `open`, `creating` or `pending`. `failureKind`, `error` and `advice` are the latest attempt's,
 * `notBefore` (ISO) when a deferred job may be retried. `file` is relative to the folder of
 * `results.json`, with `/` separators; absent when the result was not downloaded. `credits` is the
 * job's charged credits: a job with two results repeats it on both rows (count the rows without
 * `fileIndex` or with `fileIndex` 1 for a total). `resultUrlExpiresAt` is when the service deletes
 * the result (7 days after completion). `params` are as written in the manifest (local reference
 * files by their manifest path). `results.csv` has the same rows, with a UTF-8 byte-order mark (so
 * Excel reads non-ASCII prompts), `params` as JSON and matrix values as one column per axis.
 *
 * Version 1 had rows only for result files of done jobs, without status, params or failures.
 */
export interface ResultsIndex {
  schemaVersion: 2;
  pipeline: string;
  runId: string;
  generatedAt: string;
  axes: string[];
  results: ResultRow[];
}

export interface ResultRow {
  id: string;
  fileIndex?: number;
  status: ReportStatus;
  matrix: Record<string, MatrixValue>;
  prompt?: string;
  model: string;
  kind: string;
  params: Record<string, unknown>;
  attempts: number;
  credits: number;
  failureKind?: string;
  error?: string;
  advice?: string;
  notBefore?: string;
  serviceJobId?: string;
  /** The machine that last worked on the job (PostgreSQL state, several machines on one run). */
  machine?: string;
  file?: string;
  bytes?: number;
  sha256?: string;
  resultUrl?: string;
  resultUrlExpiresAt?: string;
  /** Why a result the state records as saved is not in this machine's output (#30.2). */
  missing?: string;
}

/** The index with its rows made on demand (each iteration makes them anew), for writing it in pieces. */
export type ResultsIndexSource = Omit<ResultsIndex, 'results'> & { results: Iterable<ResultRow> };

/** Builds the index; `indexDir` is the folder the index is written to (file paths are relative to it). */
export function buildResultsIndex(data: ReportData, indexDir: string): ResultsIndex {
  const source = describeResultsIndex(data, indexDir);
  return { ...source, results: [...source.results] };
}

/**
 * {@link buildResultsIndex} without holding its rows: they are made again each time they are read,
 * so writing the index of a 100,000-job run keeps one row at a time instead of all of them.
 */
export function describeResultsIndex(data: ReportData, indexDir: string): ResultsIndexSource {
  return {
    ...resultsIndexHeader(data),
    results: { [Symbol.iterator]: () => makeResultRows(data, indexDir) },
  };
}

/** The index's fields before its rows. */
export function resultsIndexHeader(data: Omit<ReportData, 'entries'>): Omit<ResultsIndex, 'results'> {
  return {
    schemaVersion: 2,
    pipeline: data.pipeline,
    runId: data.runId,
    generatedAt: data.generatedAt,
    axes: data.axes,
  };
}

function* makeResultRows(data: ReportData, indexDir: string): Generator<ResultRow> {
  for (const entry of data.entries) yield* resultRowsOf(entry, indexDir);
}

/** The index's rows of one job: one per result file of a job with results, else one for the job. */
export function resultRowsOf(entry: ReportEntry, indexDir: string): ResultRow[] {
  const job = jobRow(entry);
  if (entry.files.length === 0) return [job];
  return entry.files.map((file) => {
    const { id, ...rest } = job;
    const row: ResultRow = { id, fileIndex: file.index, ...rest };
    if (file.path !== undefined) row.file = relativePath(indexDir, file.path);
    if (file.bytes !== undefined) row.bytes = file.bytes;
    if (file.sha256 !== undefined) row.sha256 = file.sha256;
    row.resultUrl = file.url;
    if (file.urlExpiresAt !== undefined) row.resultUrlExpiresAt = file.urlExpiresAt;
    if (file.missing !== undefined) row.missing = file.missing;
    return row;
  });
}

/** The fields of a job's rows that are the job's, in the order rows list them. */
function jobRow(entry: ReportEntry): ResultRow {
  return {
    id: entry.id,
    status: reportStatusOf(entry),
    matrix: entry.matrix,
    ...(entry.prompt !== undefined && { prompt: entry.prompt }),
    model: entry.model,
    kind: entry.kind,
    params: entry.params,
    attempts: entry.attempts,
    credits: entry.credits,
    ...(entry.failureKind !== undefined && { failureKind: entry.failureKind }),
    ...(entry.error !== undefined && { error: entry.error }),
    ...(entry.advice !== undefined && { advice: entry.advice }),
    ...(entry.notBefore !== undefined && { notBefore: entry.notBefore }),
    ...(entry.serviceJobId !== undefined && { serviceJobId: entry.serviceJobId }),
    ...(entry.machine !== undefined && { machine: entry.machine }),
  };
}

/** A path relative to `fromDir`, with `/` separators whatever the platform (for links and CSV). */
export function relativePath(fromDir: string, path: string): string {
  // Results are files in `fromDir` or below it: cutting the prefix gives what `relative` gives, which
  // resolves both paths on every call (0.2-0.3 s for 100,000 results). Only for absolute paths written
  // plainly (no `.`, `..` or empty segment, no trailing separator), which `resolve` leaves as they are.
  const inside =
    path.length > fromDir.length + 1 &&
    path.startsWith(fromDir) &&
    path[fromDir.length] === sep &&
    isAbsolute(fromDir) &&
    !NOT_PLAIN.test(fromDir) &&
    !NOT_PLAIN.test(path);
  const result = inside ? path.slice(fromDir.length + 1) : relative(fromDir, path);
  return sep === '/' ? result : result.split(sep).join('/');
}

/** The platform's path separator, escaped for a pattern. */
const SEP_PATTERN = sep === '/' ? '/' : '\\\\';

/** A separator followed by an empty, `.` or `..` segment: a path `path.resolve` would rewrite. */
const NOT_PLAIN = new RegExp(`${SEP_PATTERN}\\.{0,2}(?:${SEP_PATTERN}|$)`);

const FIXED_COLUMNS = [
  'id',
  'fileIndex',
  'status',
  'prompt',
  'model',
  'kind',
  'params',
  'attempts',
  'credits',
  'failureKind',
  'error',
  'advice',
  'notBefore',
  'serviceJobId',
  'file',
  'bytes',
  'sha256',
  'resultUrl',
  'resultUrlExpiresAt',
] as const;

/** Opens `results.csv`: Excel on Windows reads a file without it as the ANSI code page. */
const UTF8_BOM = '\uFEFF';

/**
 * The index as CSV (RFC 4180: CRLF line ends, fields quoted when they hold a comma, quote or line
 * break), after a UTF-8 byte-order mark. Columns: the fixed ones (`params` as JSON), then one
 * `matrix.<axis>` column per axis.
 */
export function renderResultsCsv(index: ResultsIndexSource): string {
  return [...renderResultsCsvLines(index)].join('');
}

/** {@link renderResultsCsv} one line at a time (with its CRLF): 100,000 rows never make one string. */
export function renderResultsCsvLines(index: ResultsIndexSource): Generator<string> {
  return piecesOf(resultsCsvFormat(index.axes), index.results);
}

/** `results.csv` a row at a time (see {@link renderResultsCsv}). */
export function resultsCsvFormat(axes: readonly string[]): PiecewiseFormat<ResultRow> {
  return {
    head: () =>
      `${UTF8_BOM}${[...FIXED_COLUMNS, ...axes.map((axis) => `matrix.${axis}`)].map(csvField).join(',')}\r\n`,
    item(row) {
      const fields = [
        ...FIXED_COLUMNS.map((column) => (column === 'params' ? canonicalJson(row.params) : row[column])),
        // Map values (GitHub-style matrices) as canonical JSON, null as an empty field.
        ...axes.map((axis) => matrixValueText(row.matrix[axis])),
      ];
      return `${fields.map(csvField).join(',')}\r\n`;
    },
    tail: () => '',
  };
}

/**
 * `${JSON.stringify(index, null, 2)}\n`, byte for byte, one result row at a time: the index of a
 * 100,000-job run is ~70 MB of text, which as one string (and the stringify behind it) was the largest
 * allocation of a resumed apply. Rows are the last key, so they close the text.
 */
export function renderResultsJsonChunks(index: ResultsIndexSource): Generator<string> {
  const { results, ...header } = index;
  return piecesOf(resultsJsonFormat(header), results);
}

/** `results.json` a row at a time (see {@link renderResultsJsonChunks}). */
export function resultsJsonFormat(header: Omit<ResultsIndex, 'results'>): PiecewiseFormat<ResultRow> {
  const empty = JSON.stringify({ ...header, results: [] }, null, 2);
  let first = true;
  return {
    // The head is known to open the array only at the first row: an index without rows is `[]`.
    head: () => '',
    item(row) {
      const text = `    ${JSON.stringify(row, null, 2).replaceAll('\n', '\n    ')}`;
      // `"results": []` then `\n}` end the empty index: open the array instead.
      const piece = first ? `${empty.slice(0, -'[]\n}'.length)}[\n${text}` : `,\n${text}`;
      first = false;
      return piece;
    },
    tail: () => (first ? `${empty}\n` : '\n  ]\n}\n'),
  };
}

function csvField(value: string | number | boolean | undefined): string {
  if (value === undefined) return '';
  const text = String(value);
  // A leading = + - @ makes spreadsheets evaluate the cell: prompts are user input.
  const safe = typeof value === 'string' && /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) || safe !== text ? `"${safe.replaceAll('"', '""')}"` : safe;
}
