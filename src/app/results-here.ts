import { readableUtcTime } from '../readable-time.js';
import type { ResultsHere } from '../report/report-data.js';
import type { ResultFiles } from '../results/result-files.js';
import { holdsRecorded } from '../results/held-here.js';
import { RESULT_RETENTION_MS } from '../service/job-status.js';
import { type DownloadState, type JobState, viewJobState } from '../state/index.js';

/**
 * The run's recorded results as THIS machine has them (#30.2), for `status` and `report` (read-only:
 * nothing is fetched): each done job's recorded result is looked up in this machine's store (present,
 * same size and SHA-256); one missing or different is noted with whether its link still works and where
 * and when it was saved, never "File not found" alone.
 */
export async function findResultsHere(
  files: ResultFiles,
  state: ReadonlyMap<string, JobState>,
  now: number,
): Promise<{ here: ResultsHere; missingCount: number }> {
  const missing = new Map<string, Map<string, string>>();
  let missingCount = 0;
  for (const { id, download, completedAt } of recordedResults(state)) {
    const found = await files.store.stat(files.keyOf(download.file));
    if (holdsRecorded(found, download)) continue;
    let notes = missing.get(id);
    if (notes === undefined) missing.set(id, (notes = new Map<string, string>()));
    notes.set(download.file, describeMissing(files, download, completedAt, now, found !== undefined));
    missingCount++;
  }
  return { here: { pathOf: (file) => files.pathOf(file), missing }, missingCount };
}

/** Each recorded result of a done job's latest attempt: what a store should hold for the run. */
export function* recordedResults(
  state: ReadonlyMap<string, JobState>,
): Generator<{ id: string; download: DownloadState; completedAt: number | undefined }> {
  for (const [id, known] of state) {
    if (known.status !== 'done') continue;
    const job = viewJobState(known);
    const last = job.attempts.at(-1);
    if (last === undefined) continue;
    for (const download of job.downloads) {
      if (last.resultUrls.includes(download.url)) yield { id, download, completedAt: last.completedAt };
    }
  }
}

function describeMissing(
  files: ResultFiles,
  download: DownloadState,
  completedAt: number | undefined,
  now: number,
  different: boolean,
): string {
  const where = `saved on ${download.machine ?? 'another machine'} at ${readableUtcTime(download.at)}`;
  const what = `${different ? 'differs from what was saved' : 'is not'} in ${files.store.location}`;
  const expiresAt = completedAt === undefined ? undefined : completedAt + RESULT_RETENTION_MS;
  if (expiresAt !== undefined && now >= expiresAt)
    return `${what}; its link expired on ${readableUtcTime(expiresAt)} (${where})`;
  const until = expiresAt === undefined ? '' : ` (its link works until ${readableUtcTime(expiresAt)})`;
  return `${what} (${where}); \`runner apply --download-only\` fetches it again${until}`;
}
