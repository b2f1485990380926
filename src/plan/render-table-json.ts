import type { MatrixValue } from '../manifest/types.js';
import { roundCredits } from './credits.js';
import type { JobTable } from './job-table.js';

/**
 * A {@link JobTable}'s lines, two levels deep and joined by commas, as `JSON.stringify(report, null, 2)`
 * writes them: a table's lines all have the report's keys in its order, so no line is checked, and the
 * few distinct kinds, models, states, credits, matrix keys and string values are written to JSON once
 * each. Read from the table's columns (no `JobCost` object per job).
 *
 * A row is a handful of strings added together, and what it adds is what costs: each `+` of long
 * enough strings makes a node of a rope that the write walks again, piece by piece, to encode it (at
 * 1,000,000 jobs, ~45 pieces a row made flattening the chunks 3.5 % of `runner plan`, `perf`). So the
 * parts a row shares with the row before (from `kind` to `matrixValues`, the matrix values up to the
 * last, the `paramsRef` line) are kept from it as one flat string each, and the constant text between
 * the row's own values is one string per gap: ~11 pieces a row.
 */
export function* renderTableJson(table: JobTable, jobsPerChunk: number): Generator<string> {
  const json = createJsonCache();
  const writeMatrixValues = createMatrixValuesWriter(json);
  const paramsRefLine = createParamsRefLines();
  const middle = createReusedText();
  let chunk = '';
  let count = 0;
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
      middle.set(
        `",\n      "kind": ${json(kind)},\n      "model": ${json(model)},` +
          `\n      "credits": ${json(roundCredits(credits))},\n      "state": ${json(state)},` +
          `\n      "toRun": ${toRun},\n      "coveredBySubscription": ${covered},\n      "matrixValues": `,
      );
    }
    chunk +=
      (count === 0 ? FIRST_ROW_OPEN : ROW_OPEN) +
      jsonStringBody(table.idAt(index)) +
      middle.get() +
      writeMatrixValues(row.matrixValues);
    // A table's diff parts (when it has them) are plain: a hex hash, a string, an index.
    const { payloadHash } = row;
    if (payloadHash === undefined) chunk += ROW_CLOSE;
    else {
      chunk +=
        HASH_OPEN +
        payloadHash +
        (row.promptJson === undefined ? HASH_CLOSE : HASH_CLOSE_PROMPT_OPEN + row.promptJson) +
        paramsRefLine(table.paramsRefAt(index));
    }
    count++;
    if (count % jobsPerChunk === 0 || chunk.length >= MAX_CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

// The constant text between a row's values (the id's quotes are in them).
const FIRST_ROW_OPEN = '    {\n      "id": "';
const ROW_OPEN = `,\n${FIRST_ROW_OPEN}`;
const ROW_CLOSE = '\n    }';
const HASH_OPEN = ',\n      "payloadHash": "';
const HASH_CLOSE = '"';
const HASH_CLOSE_PROMPT_OPEN = '",\n      "prompt": ';

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

/**
 * `JSON.stringify(text)` without its quotes, and `text` itself when JSON escapes none of its
 * characters (a job id, mostly: ids hold no control character), without `JSON.stringify`'s call.
 */
function jsonStringBody(text: string): string {
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    // Control characters, '"', '\' and surrogates (a lone one is escaped): left to JSON.stringify.
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) {
      return JSON.stringify(text).slice(1, -1);
    }
  }
  return text;
}

/**
 * A text rows reuse while it stays the same, made one flat string the first time it is reused: a
 * string built by `+` is a rope of its pieces, walked again each time a chunk holding it is written.
 * A text used once is never copied.
 */
function createReusedText(): { set(text: string): void; get(): string } {
  let current = '';
  let uses = 0;
  return {
    set(text) {
      current = text;
      uses = 0;
    },
    get() {
      if (++uses === 2) current = flatten(current);
      return current;
    },
  };
}

/**
 * `text` as one flat string. `JSON.parse` makes a new string of the JSON text it reads, and the round
 * trip gives back every string as it was (`JSON.stringify` escapes lone surrogates, `JSON.parse`
 * unescapes them), whatever V8 does with the ropes it is given.
 */
function flatten(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** The `paramsRef` line and the row's closing brace, one string per (small) params index. */
function createParamsRefLines(): (ref: number) => string {
  const lines: string[] = [];
  return (ref) => {
    let line = lines[ref];
    if (line === undefined) {
      line = `,\n      "paramsRef": ${ref}${ROW_CLOSE}`;
      if (ref < MAX_REMEMBERED_VALUES) lines[ref] = line;
    }
    return line;
  };
}

/**
 * `matrixValues` three levels deep, as `JSON.stringify(report, null, 2)` writes it, for rows in
 * turn. Jobs of a matrix come in the order it expands, the last axis changing fastest: when a row has
 * the keys of the row before and the same values but for the last, the text up to the last value is
 * the row before's ({@link createReusedText}), and only that value is written.
 */
function createMatrixValuesWriter(
  json: (value: string | number) => string,
): (values: Record<string, MatrixValue>) => string {
  let keysBefore: string[] = [];
  let valuesBefore: unknown[] = [];
  const head = createReusedText();
  return (values) => {
    const keys = Object.keys(values);
    const last = keys.length - 1;
    const lastValue = last < 0 ? undefined : values[keys[last]!];
    if (typeof lastValue !== 'string' && typeof lastValue !== 'number') {
      keysBefore = [];
      const text = renderMatrixValues(values, keys, keys.length, json);
      return text === '' ? '{}' : `{${text}\n      }`;
    }
    let same = keys.length === keysBefore.length;
    for (let at = 0; same && at <= last; at++) {
      same = keys[at] === keysBefore[at] && (at === last || values[keys[at]!] === valuesBefore[at]);
    }
    if (!same) {
      keysBefore = keys;
      valuesBefore = keys.map((key) => values[key]);
      const before = renderMatrixValues(values, keys, last, json);
      head.set(`{${before}${before === '' ? '' : ','}\n        ${json(keys[last]!)}: `);
    }
    return `${head.get()}${json(lastValue)}\n      }`;
  };
}

/**
 * The first `count` keys' lines of `matrixValues` between its braces (`{` and the closing line left
 * out), as `JSON.stringify(report, null, 2)` writes them; '' when none has a JSON form.
 */
function renderMatrixValues(
  values: Record<string, MatrixValue>,
  keys: string[],
  count: number,
  json: (value: string | number) => string,
): string {
  let text = '';
  for (let at = 0; at < count; at++) {
    const key = keys[at]!;
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
  return text;
}
