import { createGrowableArray } from '../growable-array.js';
import type { MatrixValue } from '../manifest/types.js';
import type { CostReport, JobCost } from './cost-report.js';
import { JOB_STATE_CLASSES } from './cost-report.js';
import { roundCredits } from './credits.js';

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
  payloadHash: string;
  prompt: string | undefined;
  /** `shownParamsJson` of the params sent. */
  paramsJson: string;
}

/** A job's diff parts as the table keeps them: the params interned (many jobs share the same). */
export interface ShownAt {
  payloadHash: string;
  prompt: string | undefined;
  /** The same number for the same params within one table: their index in `paramSets()`. */
  paramsKey: number;
  /** Parsed once per distinct params; shared between jobs, so never to be changed. */
  params: Record<string, unknown>;
}

/** The per-job part of a cost report, ~20 bytes a job plus its id (see {@link createJobTable}). */
export interface JobTable extends JobListView {
  push(entry: JobTableEntry): void;
  kindAt(index: number): string;
  modelAt(index: number): string;
  creditsAt(index: number): number;
  toRunAt(index: number): boolean;
  /** The job's diff parts; `undefined` when the table was not given them. */
  shownAt(index: number): ShownAt | undefined;
  /** The distinct params of the jobs given diff parts, by `ShownAt.paramsKey` (the report's `paramSets`). */
  paramSets(): Record<string, unknown>[];
  /** Marks a job to run as covered by the subscription's image allowance. */
  setCovered(index: number): void;
}

const TO_RUN = 8;
const COVERED = 16;
const STATE_MASK = 7;

/**
 * A job list kept as columns: the id, interned kind and model indexes, credits and a flag byte per
 * job. Matrix values are not kept: `matrixValuesOf(ref)` gives them back when a job is read, so a
 * 1,000,000-job plan does not hold a million matrix-value objects.
 */
export function createJobTable(matrixValuesOf: (ref: number) => Record<string, MatrixValue>): JobTable {
  const ids: string[] = [];
  const names: string[] = [];
  const nameIndexes = new Map<string, number>();
  const intern = (name: string): number => {
    let index = nameIndexes.get(name);
    if (index === undefined) {
      index = names.length;
      names.push(name);
      nameIndexes.set(name, index);
    }
    return index;
  };
  const kinds = createGrowableArray(Uint32Array);
  const models = createGrowableArray(Uint32Array);
  const credits = createGrowableArray(Float64Array);
  const flags = createGrowableArray(Uint8Array);
  const refs = createGrowableArray(Uint32Array);
  // The diff parts (only when given): params are interned, as jobs of one entry mostly share them.
  const hashes: string[] = [];
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
  const shownAt = (index: number): ShownAt | undefined => {
    const payloadHash = hashes[index];
    if (payloadHash === undefined) return undefined;
    const paramsKey = paramKeys.at(index);
    return { payloadHash, prompt: prompts[index], paramsKey, params: paramObjects[paramsKey]! };
  };

  const jobAt = (index: number): JobCost => {
    const flag = flags.at(index);
    const job: JobCost = {
      id: ids[index]!,
      kind: names[kinds.at(index)]!,
      model: names[models.at(index)]!,
      credits: roundCredits(credits.at(index)),
      state: JOB_STATE_CLASSES[flag & STATE_MASK]!,
      toRun: (flag & TO_RUN) !== 0,
      coveredBySubscription: (flag & COVERED) !== 0,
      matrixValues: matrixValuesOf(refs.at(index)),
    };
    const payloadHash = hashes[index];
    if (payloadHash !== undefined) {
      job.payloadHash = payloadHash;
      const prompt = prompts[index];
      if (prompt !== undefined) job.prompt = prompt;
      job.paramsRef = paramKeys.at(index);
    }
    return job;
  };
  const table: JobTable = {
    get length() {
      return ids.length;
    },
    *[Symbol.iterator]() {
      for (let index = 0; index < ids.length; index++) yield jobAt(index);
    },
    push(entry) {
      ids.push(entry.id);
      kinds.push(intern(entry.kind));
      models.push(intern(entry.model));
      credits.push(entry.credits);
      flags.push(JOB_STATE_CLASSES.indexOf(entry.state) | (entry.toRun ? TO_RUN : 0));
      refs.push(entry.ref);
      if (entry.shown !== undefined) {
        hashes[ids.length - 1] = entry.shown.payloadHash;
        prompts[ids.length - 1] = entry.shown.prompt;
        while (paramKeys.length < ids.length - 1) paramKeys.push(0);
        paramKeys.push(internParams(entry.shown.paramsJson));
      }
    },
    kindAt: (index) => names[kinds.at(index)]!,
    modelAt: (index) => names[models.at(index)]!,
    creditsAt: (index) => credits.at(index),
    toRunAt: (index) => (flags.at(index) & TO_RUN) !== 0,
    shownAt,
    paramSets: () => paramObjects,
    setCovered: (index) => flags.set(index, flags.at(index) | COVERED),
  };
  jobTables.add(table);
  return table;
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
