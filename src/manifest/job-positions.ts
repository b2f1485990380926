import { countMatrixProduct } from './expand-matrix.js';
import type { LoadedManifest } from './types.js';

/**
 * How many jobs the manifest's entries give when each job's position follows from the manifest alone:
 * every entry is valid and either a plain job (one position) or a matrix with axes and neither
 * `include` nor `exclude` (one position per combination of the cross product, in `iterateMatrix`'s
 * order). Then the jobs at positions `start` to `end` can be expanded without the ones before them
 * (`streamJobs` with a range), as long as no job before them fails to expand: a failure is an issue,
 * and a plan split by position is only kept when neither part has one. `undefined` for any other
 * manifest.
 */
export function countAddressableJobs(
  loaded: Pick<LoadedManifest, 'manifest' | 'invalidJobs'>,
): number | undefined {
  if ((loaded.invalidJobs?.size ?? 0) > 0) return undefined;
  let total = 0;
  for (const spec of loaded.manifest.jobs) {
    const { matrix } = spec;
    if (matrix === undefined) {
      total += 1;
      continue;
    }
    if (matrix.include !== undefined || matrix.exclude !== undefined) return undefined;
    const product = countMatrixProduct(matrix);
    if (product === 0) return undefined;
    total += product;
  }
  return total;
}

/**
 * The job entry and matrix key (`rawIndex`, -1 for a plain job) of each position from `start` on, of
 * a manifest {@link countAddressableJobs} counts.
 */
export function* entriesFrom(
  loaded: Pick<LoadedManifest, 'manifest'>,
  start: number,
): Generator<{ specIndex: number; rawIndex: number }, void, undefined> {
  let first = 0;
  const { jobs } = loaded.manifest;
  for (let specIndex = 0; specIndex < jobs.length; specIndex++) {
    const matrix = jobs[specIndex]!.matrix;
    const count = matrix === undefined ? 1 : countMatrixProduct(matrix);
    for (let index = Math.max(0, start - first); index < count; index++) {
      yield { specIndex, rawIndex: matrix === undefined ? -1 : index };
    }
    first += count;
  }
}
