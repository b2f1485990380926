import type { PlannedJob } from '../plan/types.js';
import type { AttemptState } from '../state/job-state.js';
import { viewJobState } from '../state/stored-job.js';
import type { ExecutionContext } from './context.js';
import { errorMessageOf } from './error-info.js';

/** The service's clock and ours may differ; a listed job this much older than our intent still counts. */
const CLOCK_SLACK_MS = 120_000;

/** What a search for a create whose answer was lost came to. */
export type LostJobSearch =
  | { kind: 'found'; jobId: string }
  | { kind: 'none' }
  | { kind: 'ambiguous'; count: number }
  | { kind: 'unavailable'; reason: string };

/**
 * Looks for the job a create without an idempotency key may have made before its answer was lost
 * (issue #11.9), in the service's recent-jobs listing: a job of the same model and prompt, created
 * after the attempt's intent (less a clock slack), whose id no job of this state holds. Only a single
 * such job is taken; none or several leave the attempt uncertain. The spec has no listing: when the
 * service answers 404 (or the client has no listing) the search is `unavailable` and says so.
 */
export async function findLostJob(
  ctx: ExecutionContext,
  job: PlannedJob,
  attempt: AttemptState,
): Promise<LostJobSearch> {
  const find = ctx.client.findRecentJobs?.bind(ctx.client);
  if (find === undefined) return { kind: 'unavailable', reason: 'this client cannot list jobs' };
  let listed;
  try {
    listed = await find({ since: attempt.intentAt - CLOCK_SLACK_MS }, { signal: ctx.hardSignal });
  } catch (error) {
    return { kind: 'unavailable', reason: `listing recent jobs failed: ${errorMessageOf(error)}` };
  }
  if (listed === undefined) {
    return { kind: 'unavailable', reason: 'the service offers no job listing (GET /jobs answered 404)' };
  }
  const known = new Set<string>();
  for (const state of ctx.jobs.values()) {
    for (const earlier of viewJobState(state).attempts)
      if (earlier.jobId !== undefined) known.add(earlier.jobId);
  }
  const matches = listed.filter(
    (candidate) =>
      !known.has(candidate.jobId) &&
      candidate.model === job.model &&
      (job.prompt === undefined || candidate.prompt === job.prompt) &&
      (candidate.createdAt === undefined || candidate.createdAt >= attempt.intentAt - CLOCK_SLACK_MS),
  );
  const [only] = matches;
  if (only === undefined) return { kind: 'none' };
  if (matches.length > 1) return { kind: 'ambiguous', count: matches.length };
  return { kind: 'found', jobId: only.jobId };
}

/** One sentence for the report: what the search found and what is left to do by hand. */
export function describeSearch(search: Exclude<LostJobSearch, { kind: 'found' }>): string {
  switch (search.kind) {
    case 'none':
      return 'the service lists no matching job created since then: probably none was made; check, then --resend-uncertain';
    case 'ambiguous':
      return `the service lists ${search.count} matching jobs created since then: check by hand which is this one`;
    case 'unavailable':
      return `${search.reason}: check in the service's web app whether it exists before --resend-uncertain`;
  }
}
