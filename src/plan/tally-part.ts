import type { AxisSubtotal, JobCost, JobStateClass, ModelSubtotal } from './cost-report.js';
import { RunnerError } from '../errors.js';
import type { JobListView, JobTable } from './job-table.js';

/**
 * What a cost tally of the jobs at the end of a plan (a part planned on another thread, see
 * `app/plan-split.ts`) hands the tally of the jobs before them: its running sums, what the
 * subscription's walk reads of each job, and its distinct params. Plain data and typed arrays
 * (structured clone); its rows stay with it, and are written as JSON where they are (`PartRows`).
 */
export interface TallyPart {
  sums: TallySums;
  /** Per job, in order: what `finish` reads to walk the subscription's allowance over the jobs. */
  walk: PartWalk;
  /** The part's `paramSets()`, each as JSON text, in its own order (its rows' `paramsRef`s). */
  paramsTexts: string[];
}

/** The sums {@link TallyPart} carries, in the tally's own order of first appearance. */
export interface TallySums {
  byState: Record<JobStateClass, number>;
  unanswered: number;
  total: number;
  toRun: number;
  jobsToRun: number;
  models: ModelSubtotal[];
  axes: [string, AxisSubtotal['values']][];
}

/** A part's jobs as columns: kinds and models by index in `names`, credits, and whether each runs. */
export interface PartWalk {
  count: number;
  names: string[];
  kinds: Uint32Array;
  models: Uint32Array;
  credits: Float64Array;
  toRun: Uint8Array;
}

/**
 * A part's rows where they are kept: written as the report's JSON lines (what `renderTableJson`
 * writes for them, without a leading comma) once the whole plan's subscription walk has marked the
 * ones it covers and the params' indexes are the whole plan's.
 */
export interface PartRows {
  readonly count: number;
  /**
   * The rows' JSON as UTF-8, in order. `covered`: one byte per row, 1 for a job the subscription
   * covers (absent: none); `paramsRefs`: the whole plan's index of each of the part's params.
   */
  json(covered: Uint8Array | undefined, paramsRefs: Uint32Array): AsyncIterable<Uint8Array>;
  /** Lets the rows go (ends the thread that keeps them); called once the report is written, or not. */
  close(): Promise<void>;
}

/** The job list of a tally given a part: its own table, then the part's rows, kept elsewhere. */
export interface SplitJobList extends JobListView {
  readonly first: JobTable;
  readonly rest: PartRows;
  /** Filled by the tally's `finish` (the subscription's walk), read when the rows are written. */
  readonly restCovered: Uint8Array | undefined;
  readonly restParamsRefs: Uint32Array;
}

const splitLists = new WeakSet<JobListView>();

/**
 * A {@link SplitJobList}: iterable as far as its first table goes (the text and markdown reports read
 * the first `MAX_LISTED_JOBS` jobs, and a plan is only split past them); the part's rows are written
 * as JSON by {@link PartRows.json}.
 */
export function createSplitJobList(
  first: JobTable,
  rest: PartRows,
  restCovered: Uint8Array | undefined,
  restParamsRefs: Uint32Array,
): SplitJobList {
  const list: SplitJobList = {
    first,
    rest,
    restCovered,
    restParamsRefs,
    get length() {
      return first.length + rest.count;
    },
    *[Symbol.iterator](): Generator<JobCost> {
      yield* first;
      throw new RunnerError(
        'INTERNAL',
        `a plan split over two threads was read past its first ${first.length} jobs; the others are written as JSON only`,
      );
    },
  };
  splitLists.add(list);
  return list;
}

export function isSplitJobList(list: JobListView): list is SplitJobList {
  return splitLists.has(list);
}

/** What a part's walk reads of each row of its table. */
export function packWalk(table: JobTable): PartWalk {
  const count = table.length;
  const names: string[] = [];
  const nameIndexes = new Map<string, number>();
  const intern = (name: string): number => {
    let index = nameIndexes.get(name);
    if (index === undefined) nameIndexes.set(name, (index = names.push(name) - 1));
    return index;
  };
  const walk: PartWalk = {
    count,
    names,
    kinds: new Uint32Array(count),
    models: new Uint32Array(count),
    credits: new Float64Array(count),
    toRun: new Uint8Array(count),
  };
  for (let index = 0; index < count; index++) {
    walk.kinds[index] = intern(table.kindAt(index));
    walk.models[index] = intern(table.modelAt(index));
    walk.credits[index] = table.creditsAt(index);
    walk.toRun[index] = table.toRunAt(index) ? 1 : 0;
  }
  return walk;
}

/**
 * Whether sums of these credits come out the same whatever they are added in: every figure a multiple
 * of 1/1024 and small, so each partial sum of up to 4,194,304 of them is exact in a double (a part's
 * sum added to the sum before it then equals adding its jobs one by one, as one thread does).
 */
export function sumsAreExact(count: number, creditsAt: (index: number) => number): boolean {
  if (count > 2 ** 22) return false;
  for (let index = 0; index < count; index++) {
    const value = creditsAt(index);
    if (!Number.isInteger(value * 1024) || Math.abs(value) > 2 ** 20) return false;
  }
  return true;
}
