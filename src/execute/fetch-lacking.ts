import pLimit from 'p-limit';
import type { PlannedJob } from '../manifest/planned-job.js';
import { isHeldHere } from '../results/held-here.js';
import { type JobState, viewJobState } from '../state/index.js';
import type { ExecutionContext } from './context.js';
import { downloadResults, type DownloadedResults } from './download-results.js';
import { errorMessageOf } from './error-info.js';
import type { JobResult } from './job-result.js';

/**
 * What a fetch of another machine's results during the run did (`fetch-meanwhile.ts`): for the job's
 * attempt `attempt`, as `downloadResults` answered. The end of the run takes it instead of fetching
 * (and warning) again while the job's latest attempt is still that one.
 */
export interface FetchedEarly {
  attempt: number;
  downloads: DownloadedResults;
}

/** Results fetched at once at the end of a run: the link's host serves them in parallel. */
const END_FETCHES = 8;

/**
 * Before the run is reported (#30.2): every done job's results, saved by an earlier apply or by another
 * machine, are checked in this machine's store (present, same size and SHA-256); what is missing or
 * different is fetched again while its link lives (no create, nothing paid), and what cannot be is
 * counted as not saved (`downloading`), with when and where it was saved. Up to {@link END_FETCHES} at
 * once: nothing of this process's own is left to download by now. `early`: what was fetched while the
 * run went on, not fetched again.
 */
export async function fetchWhatThisMachineLacks(
  ctx: ExecutionContext,
  planned: readonly PlannedJob[],
  results: Map<string, JobResult>,
  checked: ReadonlySet<string>,
  early: ReadonlyMap<string, FetchedEarly> = new Map(),
): Promise<void> {
  const limit = pLimit(END_FETCHES);
  let refetched = 0;
  await Promise.all(
    planned.map(async (job) => {
      const result = results.get(job.id);
      const state = ctx.jobs.get(job.id);
      if (result?.outcome !== 'done' || checked.has(job.id) || state?.status !== 'done') return;
      const before = early.get(job.id);
      const downloads =
        before !== undefined && before.attempt === state.attempts.at(-1)?.attempt
          ? before.downloads
          : await limit(async () =>
              // Read without keeping it: a job of a state snapshot stays on disk when all is here.
              (await isAllStoredHere(ctx, viewJobState(state)))
                ? undefined
                : downloadResultsSafely(ctx, job, { verify: true }),
            );
      if (downloads === undefined) return;
      refetched += downloads.refetched ?? 0;
      if (downloads.failures === 0) return;
      results.set(job.id, {
        outcome: 'downloading',
        files: downloads.files,
        downloadFailures: downloads.failures,
        ...(downloads.error === undefined ? {} : { downloadError: downloads.error }),
      });
    }),
  );
  if (refetched > 0) {
    ctx.emit({
      type: 'warning',
      message: `${refetched} result(s) the state records as saved were missing from ${ctx.results?.store.location ?? 'the output folder'} (saved on another machine, or moved): fetched again from the service, no job created, nothing paid.`,
    });
  }
}

/** True when every recorded result of the job's latest attempt is in this machine's store as recorded. */
export async function isAllStoredHere(ctx: ExecutionContext, job: JobState): Promise<boolean> {
  const results = ctx.results;
  const last = job.attempts.at(-1);
  if (results === undefined || last === undefined) return true;
  for (const download of job.downloads) {
    if (!last.resultUrls.includes(download.url)) continue;
    if (!(await isHeldHere(results, download))) return false;
  }
  return true;
}

/** {@link downloadResults}, an unexpected error reported as the job's results not saved. */
export async function downloadResultsSafely(
  ctx: ExecutionContext,
  job: PlannedJob,
  mode: { verify?: boolean } = {},
): Promise<DownloadedResults> {
  try {
    return await downloadResults(ctx, job, mode);
  } catch (error) {
    ctx.emit({
      type: 'warning',
      id: job.id,
      message: `Downloading the results of job ${job.id} failed: ${errorMessageOf(error)}`,
    });
    return { files: [], failures: 1, error: `result not saved: ${errorMessageOf(error)}` };
  }
}
