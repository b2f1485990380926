import type { ChangedJob } from './cost-diff.js';

/** Changed fields named per job; more are counted (the JSON has them all). */
const MAX_FIELDS_SHOWN = 5;

/**
 * What changed in a job, for a table's last column (#33.8): `params.numImages 1 → 3, model a → b`, each
 * part made by `field(path, base, head)` (text or Markdown); `price only` when the payload is the same.
 * A diff without values (an older file) names the paths alone.
 */
export function describeChanges(
  job: Pick<ChangedJob, 'changed' | 'changes'>,
  field: (path: string, base: string | null, head: string | null) => string,
  path: (path: string) => string,
): string {
  if (job.changed.length === 0) return 'price only';
  const parts =
    job.changes === undefined
      ? job.changed.slice(0, MAX_FIELDS_SHOWN).map(path)
      : job.changes.slice(0, MAX_FIELDS_SHOWN).map((change) => field(change.path, change.base, change.head));
  const more = job.changed.length - parts.length;
  return more > 0 ? `${parts.join(', ')} and ${more} more` : parts.join(', ');
}
