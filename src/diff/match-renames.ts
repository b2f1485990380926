import type { DiffJob } from './plan-document.js';

/** A base job and the head job it became under a new id. */
export interface RenamePair {
  base: DiffJob;
  head: DiffJob;
}

/**
 * Pairs jobs that only one side has by their payload hash: the same payload under a new id is a
 * rename, not a removed job and an added one. Each base job pairs with at most one head job, in
 * plan order (two head jobs with one payload: the first is the rename, the second is added).
 */
export function matchRenames(
  removed: readonly DiffJob[],
  added: readonly DiffJob[],
): { renames: RenamePair[]; removed: DiffJob[]; added: DiffJob[] } {
  const byHash = new Map<string, DiffJob[]>();
  for (const job of removed) {
    const list = byHash.get(job.payloadHash);
    if (list === undefined) byHash.set(job.payloadHash, [job]);
    else list.push(job);
  }
  const renames: RenamePair[] = [];
  const paired = new Set<DiffJob>();
  const stillAdded: DiffJob[] = [];
  for (const job of added) {
    const candidates = byHash.get(job.payloadHash);
    const base = candidates?.shift();
    if (base === undefined) {
      stillAdded.push(job);
      continue;
    }
    renames.push({ base, head: job });
    paired.add(base);
  }
  return { renames, removed: removed.filter((job) => !paired.has(job)), added: stillAdded };
}
