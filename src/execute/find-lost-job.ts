import { getJobKind } from '../kinds/index.js';
import { canonicalJson } from '../canonical-json.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import type { ListedJob } from '../service/service-client.js';
import { type AttemptState, viewJobState } from '../state/index.js';
import type { ExecutionContext } from './context.js';
import { errorMessageOf } from './error-info.js';
import { uploadReferences } from './upload-references.js';

/**
 * How much earlier than our intent a listed job may seem created and still count: the clock offset
 * measured from the service's `Date` header is good to about a second (whole seconds, plus latency);
 * without one, the clocks may differ by more and the window is wider.
 */
const MEASURED_SLACK_MS = 30_000;
const UNMEASURED_SLACK_MS = 120_000;

/** What a search for a create whose answer was lost came to. */
export type LostJobSearch =
  | { kind: 'found'; jobId: string }
  | { kind: 'none'; clock: string }
  | { kind: 'ambiguous'; count: number }
  /** A match that may not be ours: another run's lost create of the same payload, say. */
  | { kind: 'unsure'; reason: string }
  | { kind: 'unavailable'; reason: string };

/**
 * Looks for the job a create without an idempotency key may have made before its answer was lost
 * (issues #11.9, #24.8), in the service's recent-jobs listing. A listed job is this attempt's only when
 * its payload is exactly the one sent (model and prompt, and the whole body when the listing shows it),
 * it was created after the attempt's intent (on our clock: the client corrects the listing's times by
 * the offset measured from the service's `Date` header), and no journal holds its id: neither this
 * run's nor another run's of the pipeline. Only a single such job is taken, and only when no other run
 * has a lost create of the same payload that it might be; otherwise the search says it is unsure.
 */
export async function findLostJob(
  ctx: ExecutionContext,
  job: PlannedJob,
  attempt: AttemptState,
): Promise<LostJobSearch> {
  const find = ctx.client.findRecentJobs?.bind(ctx.client);
  if (find === undefined) return { kind: 'unavailable', reason: 'this client cannot list jobs' };
  const measured = ctx.client.serviceClockOffsetMs?.() !== undefined;
  const since = attempt.intentAt - (measured ? MEASURED_SLACK_MS : UNMEASURED_SLACK_MS);
  let listed: ListedJob[] | undefined;
  try {
    listed = await find({ since }, { signal: ctx.hardSignal });
  } catch (error) {
    return { kind: 'unavailable', reason: `listing recent jobs failed: ${errorMessageOf(error)}` };
  }
  if (listed === undefined) {
    return { kind: 'unavailable', reason: 'the service offers no job listing (GET /jobs answered 404)' };
  }
  let others;
  try {
    others = await ctx.readOtherRuns?.();
  } catch (error) {
    return { kind: 'unsure', reason: `the other runs' state could not be read (${errorMessageOf(error)})` };
  }
  const held = new Set<string>(others?.jobIds ?? []);
  for (const state of ctx.jobs.values()) {
    for (const earlier of viewJobState(state).attempts)
      if (earlier.jobId !== undefined) held.add(earlier.jobId);
  }
  const sent = listed.some((candidate) => candidate.payload !== undefined)
    ? await rebuildBody(ctx, job)
    : undefined;
  const matches = listed.filter(
    (candidate) =>
      !held.has(candidate.jobId) &&
      isSamePayload(candidate, job, sent) &&
      (candidate.createdAt === undefined || candidate.createdAt >= since),
  );
  const clock = describeClock(ctx.client.serviceClockOffsetMs?.());
  const [only] = matches;
  if (only === undefined) return { kind: 'none', clock };
  if (matches.length > 1) return { kind: 'ambiguous', count: matches.length };
  if (others?.unansweredPayloads.has(attempt.payloadHash) === true) {
    return {
      kind: 'unsure',
      reason: `the service lists job ${only.jobId} of this payload, but another run of the pipeline also has a create of it whose answer was lost: it may be theirs`,
    };
  }
  if (others !== undefined && others.unreadable.length > 0) {
    return {
      kind: 'unsure',
      reason: `the service lists job ${only.jobId} of this payload, but the state of run ${others.unreadable.join(', ')} could not be read: it may be theirs`,
    };
  }
  return { kind: 'found', jobId: only.jobId };
}

/** The body the create sent, as `createAttempt` builds it (uploads come from the cache); else undefined. */
async function rebuildBody(
  ctx: ExecutionContext,
  job: PlannedJob,
): Promise<Record<string, unknown> | undefined> {
  try {
    const params = await uploadReferences(ctx, job.id, job.params);
    return getJobKind(job.kind).buildBody({ model: job.model, prompt: job.prompt, params });
  } catch {
    return undefined;
  }
}

/**
 * Model and prompt equal (a job without a prompt matches only a listed job without one), and the whole
 * body when the listing shows it. A body that could not be rebuilt matches nothing listed with one.
 */
function isSamePayload(
  candidate: ListedJob,
  job: PlannedJob,
  sent: Record<string, unknown> | undefined,
): boolean {
  if (candidate.model !== job.model) return false;
  if ((candidate.prompt ?? undefined) !== job.prompt) return false;
  if (candidate.payload === undefined) return true;
  return sent !== undefined && canonicalJson(candidate.payload) === canonicalJson(sent);
}

/** `the service's clock is 10 min behind ours` for the report, or a note that it was not measured. */
function describeClock(offsetMs: number | undefined): string {
  if (offsetMs === undefined) return "the service's clock could not be compared with ours";
  const seconds = Math.round(Math.abs(offsetMs) / 1000);
  if (seconds < 2) return "the service's clock agrees with ours";
  const amount = seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${seconds} s`;
  return `the service's clock is ${amount} ${offsetMs < 0 ? 'behind' : 'ahead of'} ours, allowed for`;
}

/**
 * One sentence for the report: what the search found and what is left to do by hand. It never calls a
 * re-send safe: a listing that shows nothing does not prove nothing was made.
 */
export function describeSearch(search: Exclude<LostJobSearch, { kind: 'found' }>): string {
  const resend = '--resend-uncertain pays again if it was made';
  switch (search.kind) {
    case 'none':
      return `the service lists no job of this exact payload created since then (${search.clock}), which does not prove none was made: check in the service's web app; ${resend}`;
    case 'ambiguous':
      return `the service lists ${search.count} jobs of this exact payload created since then: check by hand which is this one; ${resend}`;
    case 'unsure':
      return `${search.reason}; not adopted: check by hand; ${resend}`;
    case 'unavailable':
      return `${search.reason}: check in the service's web app whether it exists; ${resend}`;
  }
}
