import { combinationAt, type MatrixCombination } from './expand-matrix.js';
import { reportDuplicateIds, type IdProducer } from './report-duplicate-ids.js';
import type { LoadedManifest, ValidationIssue } from './types.js';
import { createGrowableArray } from '../growable-array.js';
import { createIdTable, type IdTable } from './id-table.js';

/**
 * Every expanded job by position (the order expansion produced them in, duplicates included), kept
 * small: an id → first position map and two numbers per job, never the job itself. A job's matrix
 * values are built again from its job entry's matrix when asked for.
 */
export interface JobIndex {
  /** Jobs expanded so far (every position, duplicates included). */
  readonly size: number;
  /** Whether some job has this id. */
  has(id: string): boolean;
  /** Distinct ids in order of first appearance. */
  ids(): IterableIterator<string>;
  /** The job entry (`jobs[i]`) of the job at `position`. */
  specIndexAt(position: number): number;
  /** The matrix values of the job at `position` (a fresh object; `{}` for a plain job). */
  matrixValuesAt(position: number): MatrixCombination;
}

/** Builds a {@link JobIndex} as jobs are expanded, and the whole-run id checks at the end. */
export interface JobIndexBuilder {
  readonly index: JobIndex;
  /**
   * Records the next job. `rawIndex` is its matrix combination's key (see `iterateMatrix`), -1 for a
   * plain job. `ownValues`: the job's values when they are not what the matrix gives (the API key's
   * value redacted from them); kept as they are.
   */
  add(id: string, specIndex: number, rawIndex: number, ownValues?: MatrixCombination): void;
  /**
   * Records the id of a job that failed another check (an undefined var in its prompt, …): it takes
   * no position, but still counts for duplicate ids, so one validation reports both problems.
   */
  noteUnexpanded(id: string, specIndex: number, matrixValues: MatrixCombination): void;
  /** Duplicate ids (errors) and ids equal but for case (warnings), as `reportDuplicateIds` words them. */
  reportIds(): ValidationIssue[];
}

/** Characters `toLowerCase` may change: ASCII capitals and anything outside ASCII. */
const MAY_FOLD = /[A-Z\u0080-\uffff]/;

/** Linear in the number of jobs: one hash lookup per id, and a second map only for ids with capitals. */
export function createJobIndex(
  loaded: Pick<LoadedManifest, 'manifest' | 'locate'>,
  /** Jobs the manifest is expected to give (sizes the tables at once; more or fewer may come). */
  expectedJobs = 0,
): JobIndexBuilder {
  /** Id → the position of its first job. */
  const firstPosition = createIdTable(expectedJobs);
  const capacity = Math.max(1024, expectedJobs);
  const specs = createGrowableArray(Uint32Array, capacity);
  const rawIndexes = createGrowableArray(Float64Array, capacity);
  /** Positions whose values the matrix does not give back (the API key's value redacted from them). */
  const ownValues = new Map<number, MatrixCombination>();
  /** id → every producer, only for ids produced more than once. */
  const duplicates = new Map<string, IdProducer[]>();
  /** Lower-cased id → ids with capital letters that fold to it. */
  const folded = new Map<string, string[]>();
  /** Ids of jobs that did not expand → their producers, and how many jobs had expanded before the first. */
  const unexpanded = new Map<string, { producers: IdProducer[]; before: number }>();

  const matrixValuesAt = (position: number): MatrixCombination => {
    const own = ownValues.get(position);
    if (own !== undefined) return own;
    const rawIndex = rawIndexes.at(position);
    const matrix = loaded.manifest.jobs[specs.at(position)]?.matrix;
    return rawIndex < 0 || matrix === undefined ? {} : combinationAt(matrix, rawIndex);
  };
  const index: JobIndex = {
    get size() {
      return specs.length;
    },
    has: (id) => firstPosition.get(id) >= 0,
    ids: () => firstPosition.keys(),
    specIndexAt: (position) => specs.at(position),
    matrixValuesAt,
  };
  const producerAt = (position: number): IdProducer => ({
    id: '',
    specIndex: specs.at(position),
    matrixValues: matrixValuesAt(position),
  });

  return {
    index,
    add(id, specIndex, rawIndex, own) {
      const position = specs.length;
      specs.push(specIndex);
      rawIndexes.push(rawIndex);
      if (own !== undefined) ownValues.set(position, own);
      const first = firstPosition.add(id, position);
      if (first < 0) {
        // Only capitals (ASCII or not) can fold: most ids need no lower-cased copy.
        const lower = MAY_FOLD.test(id) ? id.toLowerCase() : id;
        if (lower !== id) {
          const list = folded.get(lower);
          if (list) list.push(id);
          else folded.set(lower, [id]);
        }
        return;
      }
      const list = duplicates.get(id) ?? [{ ...producerAt(first), id }];
      list.push({ id, specIndex, matrixValues: matrixValuesAt(position) });
      duplicates.set(id, list);
    },
    noteUnexpanded(id, specIndex, matrixValues) {
      const known = unexpanded.get(id);
      if (known) known.producers.push({ id, specIndex, matrixValues });
      else unexpanded.set(id, { producers: [{ id, specIndex, matrixValues }], before: specs.length });
    },
    reportIds() {
      const all = new Map(duplicates);
      for (const [id, { producers }] of unexpanded) {
        const first = firstPosition.get(id);
        const list =
          first < 0 ? producers : [...(all.get(id) ?? [{ ...producerAt(first), id }]), ...producers];
        // In manifest order (a stable sort keeps a matrix entry's own order), as if all had expanded.
        if (list.length > 1)
          all.set(
            id,
            list.sort((a, b) => a.specIndex - b.specIndex),
          );
      }
      const order = (id: string) => {
        const first = firstPosition.get(id);
        return first >= 0 ? first : unexpanded.get(id)!.before;
      };
      return reportDuplicateIds(loaded, {
        duplicates: [...all.values()].sort((a, b) => order(a[0]!.id) - order(b[0]!.id)),
        caseGroups: collectCaseGroups(folded, firstPosition),
        specIndexOf: (id) => specs.at(firstPosition.get(id)),
      });
    },
  };
}

/**
 * Groups of distinct ids equal but for letter case, each in order of first appearance, the groups in
 * order of their first member's appearance.
 */
function collectCaseGroups(folded: ReadonlyMap<string, string[]>, firstPosition: IdTable): string[][] {
  const groups: string[][] = [];
  for (const [lower, capitalised] of folded) {
    const ids = firstPosition.get(lower) >= 0 ? [lower, ...capitalised] : [...capitalised];
    if (ids.length < 2) continue;
    ids.sort((a, b) => firstPosition.get(a) - firstPosition.get(b));
    groups.push(ids);
  }
  return groups.sort((a, b) => firstPosition.get(a[0]!) - firstPosition.get(b[0]!));
}
