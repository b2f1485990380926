import { createGrowableArray } from '../growable-array.js';
import { RunnerError } from '../errors.js';
import type { MatrixValue } from '../manifest/types.js';
import type { CostReport, JobCost } from './cost-report.js';
import { JOB_STATE_CLASSES, type JobStateClass } from './cost-report.js';
import { roundCredits } from './credits.js';
import { createHashColumn } from './hash-column.js';
import { hashPayloadAfterPromptJson } from '../catalog/payload-hash.js';

/**
 * The report's job list as the renderers read it: its length and its jobs in plan order. A
 * `JobCost[]` is one; so is a {@link JobTable}, which builds each `JobCost` only when it is read.
 */
export interface JobListView extends Iterable<JobCost> {
  readonly length: number;
}

/** A cost report whose job list may be a {@link JobListView} (what the renderers accept). */
export type CostReportView = Omit<CostReport, 'jobList'> & { jobList: JobListView };

/**
 * One planned job as the table takes it: its report line without the parts the table derives
 * (`credits` unrounded: the report rounds each job's figure when it is read).
 */
export interface JobTableEntry extends Pick<
  JobCost,
  'id' | 'kind' | 'model' | 'credits' | 'state' | 'toRun'
> {
  /** What `matrixValuesOf` is asked with to give the job's matrix values back. */
  ref: number;
  /** What `runner diff` reads of the job, kept only when the plan was asked for it (`diffData`). */
  shown?: ShownPayload;
}

/** A job's payload as a plan report shows it for `runner diff`. */
export interface ShownPayload {
  readonly payloadHash: string;
  prompt: string | undefined;
  /** `shownParamsJson` of the params sent. */
  paramsJson: string;
  /**
   * When given, `payloadHash` is `hashPayloadAfter(hashPrefix, prompt)`: the table keeps the prefix
   * (jobs of one entry share it) and makes the hash only when the row is read (see `createShownPayloads`).
   */
  readonly hashPrefix?: string;
}

/**
 * The plan's jobs again, in the order their `ref`s count from 0 (every job the refs count, kept in the
 * table or not), iterable more than once: given to {@link createJobTable}, the table keeps no prompt
 * and reads each back from a fresh iteration whenever its lines are read.
 */
export type ReplayJobs = Iterable<ReplayedJob>;

/** A job of {@link ReplayJobs}: its matrix values, when given, are the ones `matrixValuesOf` gives back. */
export interface ReplayedJob {
  id: string;
  prompt?: string;
  /** When given, `JSON.stringify(prompt)` (the table then does not write it again). */
  promptJson?: string;
  matrixValues?: Record<string, MatrixValue>;
}

/**
 * The per-job part of a cost report, ~20 bytes a job plus its id (with the diff parts, 8 more when the
 * table makes each hash as it is read, 37 more when given hashes; see {@link createJobTable}).
 */
export interface JobTable extends JobListView {
  push(entry: JobTableEntry): void;
  /**
   * The rows in order, as one cursor refilled for each row (read it before asking for the next): what
   * the table does not keep (prompt, matrix values), with the row's index for the rest. The JSON
   * writer reads the table this way, with no `JobCost` object per job.
   */
  rows(): Iterable<TableRow>;
  idAt(index: number): string;
  kindAt(index: number): string;
  modelAt(index: number): string;
  /** As pushed, not rounded (the report's lines round it). */
  creditsAt(index: number): number;
  stateAt(index: number): JobStateClass;
  toRunAt(index: number): boolean;
  coveredAt(index: number): boolean;
  paramsRefAt(index: number): number;
  /** The distinct params of the jobs given diff parts, by `ShownAt.paramsKey` (the report's `paramSets`). */
  paramSets(): Record<string, unknown>[];
  /** Marks a job to run as covered by the subscription's image allowance. */
  setCovered(index: number): void;
}

/** One row of a {@link JobTable} as `rows()` gives it. */
export interface TableRow {
  index: number;
  /** Only for a row with diff parts. */
  prompt: string | undefined;
  /** `JSON.stringify(prompt)`, made once for the hash and the report's text (only with diff parts). */
  promptJson: string | undefined;
  /** The diff parts' hash; `undefined` for a row pushed without them. */
  payloadHash: string | undefined;
  matrixValues: Record<string, MatrixValue>;
}

const TO_RUN = 8;
const COVERED = 16;
const STATE_MASK = 7;

/**
 * A job list kept as columns: the id, interned kind and model indexes, credits and a flag byte per
 * job. Matrix values are not kept: `matrixValuesOf(ref)` gives them back when a job is read, so a
 * 1,000,000-job plan does not hold a million matrix-value objects. Nor, given `replay`, are prompts:
 * a prompt is the largest part of a job's line (~200 MB of a 1,000,000-job plan's heap), and the
 * jobs' expansion gives it back (the refs must then grow, as they do in the order jobs expand).
 */
export function createJobTable(
  matrixValuesOf: (ref: number) => Record<string, MatrixValue>,
  replay?: ReplayJobs,
): JobTable {
  const ids: string[] = [];
  const { values: names, intern } = createInterner();
  const kinds = createGrowableArray(Uint32Array);
  const models = createGrowableArray(Uint32Array);
  const credits = createGrowableArray(Float64Array);
  const flags = createGrowableArray(Uint8Array);
  const refs = createGrowableArray(Uint32Array);
  // The diff parts (only when given): params are interned, as jobs of one entry mostly share them.
  const hashes = createHashColumn();
  // A row whose hash is made when it is read (`ShownPayload.hashPrefix`): 1 + its prefix's index, else 0.
  const prefixKeys = createGrowableArray(Uint32Array);
  const { values: prefixes, intern: internPrefix } = createInterner();
  /** Without `replay`; with it, each line's prompt is read back from the replayed job. */
  const prompts: (string | undefined)[] = [];
  const paramKeys = createGrowableArray(Uint32Array);
  const paramTexts = new Map<string, number>();
  const paramObjects: Record<string, unknown>[] = [];
  const internParams = (text: string): number => {
    let key = paramTexts.get(text);
    if (key === undefined) {
      key = paramObjects.length;
      paramObjects.push(JSON.parse(text) as Record<string, unknown>);
      paramTexts.set(text, key);
    }
    return key;
  };
  // Jobs come in runs of one kind, model and params: the last of each is answered without a lookup.
  let lastKind: string | undefined;
  let lastKindIndex = 0;
  let lastModel: string | undefined;
  let lastModelIndex = 0;
  let lastParams: string | undefined;
  let lastParamsKey = 0;
  let lastPrefix: string | undefined;
  let lastPrefixKey = 0;
  let shownRows = 0;

  /**
   * Fills in the row's diff parts from its `prompt`: the prompt's JSON (`promptJson` when the replay
   * gave it) and the hash (made here when deferred).
   */
  const fillDiffParts = (row: TableRow, promptJson: string | undefined): void => {
    const { index } = row;
    const prefixKey = prefixKeys.at(index);
    const payloadHash = prefixKey === 0 ? hashes.at(index) : undefined;
    if (prefixKey === 0 && payloadHash === undefined) {
      row.promptJson = undefined;
      row.payloadHash = undefined;
      return;
    }
    row.promptJson = row.prompt === undefined ? undefined : (promptJson ?? JSON.stringify(row.prompt));
    row.payloadHash = payloadHash ?? hashPayloadAfterPromptJson(prefixes[prefixKey - 1]!, row.promptJson);
  };

  /** The line of row `index`, given what the table does not keep. */
  const jobAt = (row: TableRow): JobCost => {
    const { index } = row;
    const flag = flags.at(index);
    const job: JobCost = {
      id: ids[index]!,
      kind: names[kinds.at(index)]!,
      model: names[models.at(index)]!,
      credits: roundCredits(credits.at(index)),
      state: JOB_STATE_CLASSES[flag & STATE_MASK]!,
      toRun: (flag & TO_RUN) !== 0,
      coveredBySubscription: (flag & COVERED) !== 0,
      matrixValues: row.matrixValues,
    };
    const { payloadHash } = row;
    if (payloadHash !== undefined) {
      job.payloadHash = payloadHash;
      if (row.prompt !== undefined) job.prompt = row.prompt;
      job.paramsRef = paramKeys.at(index);
    }
    return job;
  };
  function* rows(): Generator<TableRow, void, undefined> {
    const row: TableRow = {
      index: 0,
      prompt: undefined,
      promptJson: undefined,
      payloadHash: undefined,
      matrixValues: {},
    };
    // Only the diff parts show a prompt: a table without them needs no second expansion.
    if (replay === undefined || shownRows === 0) {
      for (let index = 0; index < ids.length; index++) {
        row.index = index;
        row.prompt = prompts[index];
        row.matrixValues = matrixValuesOf(refs.at(index));
        if (shownRows !== 0) fillDiffParts(row, undefined);
        yield row;
      }
      return;
    }
    const jobs = replay[Symbol.iterator]();
    let position = -1;
    let job: ReplayedJob | undefined;
    for (let index = 0; index < ids.length; index++) {
      const ref = refs.at(index);
      while (position < ref) {
        const next = jobs.next();
        if (next.done === true) throw replayMismatch(ids[index]!, undefined);
        job = next.value;
        position++;
      }
      if (job === undefined || job.id !== ids[index]) throw replayMismatch(ids[index]!, job?.id);
      row.index = index;
      row.prompt = job.prompt;
      // The replayed job's values are the ones the index would build again.
      row.matrixValues = job.matrixValues ?? matrixValuesOf(ref);
      fillDiffParts(row, job.promptJson);
      yield row;
    }
  }
  const table: JobTable = {
    get length() {
      return ids.length;
    },
    *[Symbol.iterator]() {
      for (const row of rows()) yield jobAt(row);
    },
    rows,
    push(entry) {
      if (replay !== undefined && ids.length > 0 && entry.ref <= refs.at(ids.length - 1)) {
        throw new RunnerError(
          'INTERNAL',
          `job "${entry.id}" came out of plan order into a replayed job table`,
        );
      }
      ids.push(entry.id);
      if (entry.kind !== lastKind) lastKindIndex = intern((lastKind = entry.kind));
      if (entry.model !== lastModel) lastModelIndex = intern((lastModel = entry.model));
      kinds.push(lastKindIndex);
      models.push(lastModelIndex);
      credits.push(entry.credits);
      flags.push(JOB_STATE_CLASSES.indexOf(entry.state) | (entry.toRun ? TO_RUN : 0));
      refs.push(entry.ref);
      const { shown } = entry;
      if (shown === undefined) return;
      const row = ids.length - 1;
      shownRows++;
      if (replay === undefined) prompts[row] = shown.prompt;
      // Rows before are padded with "none" (0) only when a later row has a value: `at` reads 0 past the end.
      if (shown.hashPrefix === undefined) {
        while (hashes.length < row) hashes.push(undefined);
        hashes.push(shown.payloadHash);
      } else {
        while (prefixKeys.length < row) prefixKeys.push(0);
        if (shown.hashPrefix !== lastPrefix)
          lastPrefixKey = 1 + internPrefix((lastPrefix = shown.hashPrefix));
        prefixKeys.push(lastPrefixKey);
      }
      while (paramKeys.length < row) paramKeys.push(0);
      const { paramsJson } = shown;
      if (paramsJson !== lastParams) lastParamsKey = internParams((lastParams = paramsJson));
      paramKeys.push(lastParamsKey);
    },
    idAt: (index) => ids[index]!,
    kindAt: (index) => names[kinds.at(index)]!,
    modelAt: (index) => names[models.at(index)]!,
    creditsAt: (index) => credits.at(index),
    stateAt: (index) => JOB_STATE_CLASSES[flags.at(index) & STATE_MASK]!,
    toRunAt: (index) => (flags.at(index) & TO_RUN) !== 0,
    coveredAt: (index) => (flags.at(index) & COVERED) !== 0,
    paramsRefAt: (index) => paramKeys.at(index),
    paramSets: () => paramObjects,
    setCovered: (index) => flags.set(index, flags.at(index) | COVERED),
  };
  jobTables.add(table);
  return table;
}

/** The second expansion did not give the jobs the first one did: a bug, never a manifest's fault. */
function replayMismatch(expected: string, found: string | undefined): RunnerError {
  const what = found === undefined ? 'ended before it' : `gave "${found}" in its place`;
  return new RunnerError(
    'INTERNAL',
    `The plan's jobs expanded a second time did not match the first: job "${expected}" was expected, the second expansion ${what}.`,
    { hint: 'this is a bug in the runner: please report it with the manifest' },
  );
}

/** Tables made by {@link createJobTable}: their lines have exactly the report's keys, in its order. */
const jobTables = new WeakSet<JobListView>();

/**
 * Whether a job list is a {@link JobTable}, whose lines are plain `JobCost` objects with the report's
 * keys in the report's order and values of their declared types (the JSON writer relies on it).
 */
export function isJobTable(list: JobListView): list is JobTable {
  return jobTables.has(list);
}

/** Strings kept once each, told by their index in `values` (kind and model names, hash prefixes). */
function createInterner(): { values: string[]; intern: (text: string) => number } {
  const values: string[] = [];
  const indexes = new Map<string, number>();
  return {
    values,
    intern: (text) => {
      let index = indexes.get(text);
      if (index === undefined) {
        index = values.length;
        values.push(text);
        indexes.set(text, index);
      }
      return index;
    },
  };
}
