import type { JobState } from './job-state.js';

/**
 * What a run left unfinished that was (or may have been) paid for: jobs the service made that were
 * never followed to their end, and results of done jobs never saved. A crashed apply (kill -9, a lost
 * CI runner) leaves them; the service deletes results 7 days after a job completes (api-notes), so a
 * later apply of ANOTHER run must say so (issue 20 item 7).
 */
export interface UnfinishedWork {
  /** Jobs with a create sent and no end seen: `open` (a job id) or `creating` (no answer kept). */
  open: number;
  /** Done jobs with a result not downloaded (counted only when the run downloads its results). */
  undownloaded: number;
  /** The ids of those jobs, at most {@link MAX_LISTED_IDS} (for a `--only` hint). */
  ids: string[];
}

/** Ids listed in {@link UnfinishedWork.ids}: beyond this, a hint names the run, not each job. */
export const MAX_LISTED_IDS = 8;

/**
 * Counts a run's unfinished paid work from its replayed jobs. `downloads` false (its latest apply had
 * `--no-download`) counts no result as owed. A job read from a state snapshot is passed by on its
 * stored summary when that shows it done with every result saved, or not open.
 */
export function findUnfinishedWork(jobs: ReadonlyMap<string, JobState>, downloads: boolean): UnfinishedWork {
  const work: UnfinishedWork = { open: 0, undownloaded: 0, ids: [] };
  const note = (id: string) => {
    if (work.ids.length < MAX_LISTED_IDS) work.ids.push(id);
  };
  for (const job of jobs.values()) {
    const status = job.status;
    if (status === 'open' || status === 'creating') {
      work.open++;
      note(job.id);
      continue;
    }
    if (!downloads || status !== 'done' || job.storedSummary?.()?.complete === true) continue;
    const last = job.attempts.at(-1);
    if (last?.outcome !== 'done') continue;
    if (last.resultUrls.some((url) => !job.downloads.some((download) => download.url === url))) {
      work.undownloaded++;
      note(job.id);
    }
  }
  return work;
}
