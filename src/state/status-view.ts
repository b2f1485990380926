import { sumBudgetedCredits, type JobState, type JobStatus } from './job-state.js';
import { viewJobState } from './stored-job.js';
import { RESULT_RETENTION_MS } from '../service/job-status.js';

/**
 * The JSON shape of `runner status --json` (version 1):
 * ```
 * { schemaVersion: 1,
 *   totals: { jobs, pending, creating, open, done, downloading, failed, deferred, uncertain, creditsSpent },
 *   jobs: [{ id, status, attempts, jobId?, serviceStatus?, progress?, failureKind?, error?,
 *            notBefore?, creditCost, chargeSource?, resultsOwed?, resultsExpireAt?, machine?,
 *            files: [{ file, bytes, sha256 }] }],
 *   outputDir? }
 * ```
 * `outputDir` (added by `runner status`) is the output folder the run recorded.
 * `machine` (PostgreSQL state) names the machine that wrote the job's latest record.
 * `creditCost` counts credits charged by attempts that were not refunded, as apply counts them (its
 * summary, its cap): the reported cost, at no less than the estimate for a charge to credits, and the
 * estimate where no usable cost was reported (issue #32.1); `notBefore` is an ISO time.
 * `downloading`: the service finished (and charged) the job but `resultsOwed` of its results are not
 * downloaded; their links expire at `resultsExpireAt` (7 days after completion, api-notes).
 */
export interface StatusView {
  schemaVersion: 1;
  totals: Record<ViewStatus, number> & { jobs: number; creditsSpent: number };
  jobs: JobStatusView[];
}

/** A job's status as `status` shows it: the journal's, with `downloading` for a done job that owes results. */
export type ViewStatus = JobStatus | 'downloading';

export interface JobStatusView {
  id: string;
  status: ViewStatus;
  /** Results of the latest attempt not downloaded (only on a `downloading` job). */
  resultsOwed?: number;
  /** When the owed results' links expire (ISO), if the completion time is known. */
  resultsExpireAt?: string;
  attempts: number;
  jobId?: string;
  serviceStatus?: string;
  progress?: number;
  failureKind?: string;
  error?: string;
  notBefore?: string;
  creditCost: number;
  chargeSource?: string;
  /** The machine that last worked on the job, when several can apply the run (PostgreSQL). */
  machine?: string;
  /** `file`: as recorded (a key); `runner status` shows the path on this machine, and `missing` when not there. */
  files: { file: string; bytes: number; sha256: string; missing?: string }[];
}

/**
 * Projects replayed state onto the status view. `planIds`, when given, adds jobs of the plan that
 * never ran (as `pending`) and keeps the plan's order.
 */
export function buildStatusView(
  jobs: ReadonlyMap<string, JobState>,
  planIds?: readonly string[],
  machines?: ReadonlyMap<string, string>,
): StatusView {
  const totals: StatusView['totals'] = {
    jobs: 0,
    pending: 0,
    creating: 0,
    open: 0,
    done: 0,
    downloading: 0,
    failed: 0,
    deferred: 0,
    uncertain: 0,
    creditsSpent: 0,
  };
  let ids = [...jobs.keys()];
  if (planIds !== undefined) {
    const planned = new Set(planIds);
    ids = [...planIds, ...ids.filter((id) => !planned.has(id))];
  }
  const views = ids.map((id) => {
    const job = jobs.get(id);
    const view = projectJob(id, job === undefined ? undefined : viewJobState(job));
    const machine = machines?.get(id);
    return machine === undefined ? view : { ...view, machine };
  });
  for (const view of views) {
    totals.jobs++;
    totals[view.status]++;
    totals.creditsSpent += view.creditCost;
  }
  return { schemaVersion: 1, totals, jobs: views };
}

function projectJob(id: string, job: JobState | undefined): JobStatusView {
  if (job === undefined) return { id, status: 'pending', attempts: 0, creditCost: 0, files: [] };
  const view: JobStatusView = {
    id,
    status: job.status,
    attempts: job.attempts.length,
    creditCost: sumBudgetedCredits(job),
    files: job.downloads.map((download) => ({
      file: download.file,
      bytes: download.bytes,
      sha256: download.sha256,
    })),
  };
  const last = job.attempts.at(-1);
  if (last === undefined) return view;
  if (last.jobId !== undefined) view.jobId = last.jobId;
  if (last.status !== undefined) view.serviceStatus = last.status;
  if (last.progress !== undefined) view.progress = last.progress;
  if (last.failureKind !== undefined) view.failureKind = last.failureKind;
  const error = last.error ?? last.uncertainReason;
  if (error !== undefined) view.error = error;
  if (last.notBefore !== undefined) view.notBefore = new Date(last.notBefore).toISOString();
  if (last.chargeSource !== undefined) view.chargeSource = last.chargeSource;
  if (last.outcome === 'done') {
    const owed = last.resultUrls.filter((url) => !job.downloads.some((download) => download.url === url));
    if (owed.length > 0) {
      view.status = 'downloading';
      view.resultsOwed = owed.length;
      if (last.completedAt !== undefined)
        view.resultsExpireAt = new Date(last.completedAt + RESULT_RETENTION_MS).toISOString();
    }
  }
  return view;
}
