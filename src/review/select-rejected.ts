import type { Locator } from '../manifest/locate.js';
import type { SourceLocation, ValidationIssue } from '../manifest/types.js';
import { didYouMean } from '../suggest.js';
import type { DecisionsFile } from './decisions.js';

/**
 * A job a reviewer rejected: on the whole, or through one or more of its results (a rejected result
 * rejects its job, since the job is what the service creates and charges for).
 */
export interface Rejection {
  jobId: string;
  /** The job's attempt the decisions were made on. */
  attempt: number;
  /** That attempt's payload hash, as the report showed it. */
  payloadHash: string;
  /** The reviewer's notes, the job's first, then each rejected result's (`result 2: …`). */
  note?: string;
  /** The rejected results (1-based); empty when the whole job was rejected. */
  files: number[];
  /** Where the job's first rejecting decision is in the decisions file. */
  location: SourceLocation;
}

/** The rejections of a decisions file, checked against the run and the manifest's jobs. */
export interface RejectionCheck {
  rejections: Rejection[];
  /** Errors: another run or pipeline, unknown or duplicated jobs. The caller creates nothing. */
  issues: ValidationIssue[];
}

/**
 * The jobs a decisions file rejects, once every decision is checked: the file must be of this run
 * (`runId`, `--run`) and pipeline, and every job id one of the manifest's (else an error with a "did
 * you mean"), each job or result decided once. Pure; every problem is returned at once.
 */
export function collectRejections(
  read: { file: string; decisions: DecisionsFile; locator: Locator },
  run: { runId: string; pipeline: string; jobIds: Iterable<string> },
): RejectionCheck {
  const { decisions, locator } = read;
  const issues: ValidationIssue[] = [];
  const error = (code: string, message: string, path: (string | number)[], hint?: string) =>
    issues.push({
      severity: 'error',
      code,
      message,
      location: locator.locate(path),
      ...(hint === undefined ? {} : { hint }),
    });
  if (decisions.runId !== run.runId) {
    error(
      'decisions-other-run',
      `the decisions were made on run "${decisions.runId}", not on run "${run.runId}"${run.runId === 'default' ? ' (no --run given)' : ''}`,
      ['runId'],
      `pass --run ${decisions.runId} to re-generate that run's rejected jobs`,
    );
  }
  if (decisions.pipeline !== run.pipeline) {
    error(
      'decisions-other-pipeline',
      `the decisions were made on pipeline "${decisions.pipeline}", not on this manifest's "${run.pipeline}"`,
      ['pipeline'],
    );
  }
  const known = new Set(run.jobIds);
  const seen = new Set<string>();
  const byJob = new Map<string, Rejection>();
  const attemptOf = new Map<string, number>();
  decisions.decisions.forEach((decision, index) => {
    const path = ['decisions', index];
    if (!known.has(decision.jobId)) {
      error(
        'unknown-job',
        `decisions[${index}] names job "${decision.jobId}", which this manifest does not have`,
        [...path, 'jobId'],
        didYouMean(decision.jobId, known),
      );
      return;
    }
    const key = `${decision.jobId}\u0000${decision.file ?? 0}`;
    if (seen.has(key)) {
      error(
        'duplicate-decision',
        `decisions[${index}] decides ${decision.file === undefined ? `job "${decision.jobId}"` : `result ${decision.file} of job "${decision.jobId}"`} a second time`,
        path,
        'keep one decision per job and per result',
      );
      return;
    }
    seen.add(key);
    const attempt = attemptOf.get(decision.jobId);
    if (attempt !== undefined && attempt !== decision.attempt) {
      error(
        'mixed-attempts',
        `decisions[${index}] is about attempt ${decision.attempt} of job "${decision.jobId}", another decision about attempt ${attempt}`,
        [...path, 'attempt'],
        'decide each job on the attempt its report shows',
      );
      return;
    }
    attemptOf.set(decision.jobId, decision.attempt);
    if (decision.decision !== 'rejected') return;
    let rejection = byJob.get(decision.jobId);
    if (rejection === undefined) {
      rejection = {
        jobId: decision.jobId,
        attempt: decision.attempt,
        payloadHash: decision.payloadHash,
        files: [],
        location: locator.locate([...path, 'jobId']),
      };
      byJob.set(decision.jobId, rejection);
    }
    if (decision.file !== undefined) rejection.files.push(decision.file);
    const note = decision.note?.trim();
    if (note !== undefined && note !== '') {
      const line = decision.file === undefined ? note : `result ${decision.file}: ${note}`;
      rejection.note = rejection.note === undefined ? line : `${rejection.note}\n${line}`;
    }
  });
  // A whole-job rejection covers its results: the list of rejected results is then empty.
  for (const rejection of byJob.values()) {
    if (isJobRejected(decisions, rejection.jobId)) rejection.files = [];
    rejection.files.sort((a, b) => a - b);
  }
  return { rejections: [...byJob.values()], issues };
}

function isJobRejected(decisions: DecisionsFile, jobId: string): boolean {
  return decisions.decisions.some(
    (decision) => decision.jobId === jobId && decision.file === undefined && decision.decision === 'rejected',
  );
}

/** What the run's state says of one job: its attempts' numbers and payload hashes, oldest first. */
export interface StateAttempts {
  attempts: readonly { attempt: number; payloadHash: string }[];
}

/** Which rejections to act on now, against the run's state as it is under the lock. */
export interface DueRejections {
  /** Jobs to re-generate: their rejected attempt is still their latest. */
  due: Rejection[];
  /** Jobs re-generated since the decision (a later attempt exists): never paid for twice. */
  skipped: { rejection: Rejection; current: number; message: string }[];
  /** Decisions the state cannot have led to (another state, another run of the same id). */
  issues: ValidationIssue[];
}

/**
 * Splits rejections by the run's state: a job whose latest attempt is the one rejected is due; a job
 * with a later attempt was already re-generated (an earlier `--replace-from` of the same decisions,
 * perhaps cut short) and is skipped, so one rejection is paid for once; a decision on an attempt the
 * state does not have, or on another payload than the state's, is an error. Pure.
 */
export function selectDueRejections(
  rejections: readonly Rejection[],
  stateOf: (jobId: string) => StateAttempts | undefined,
): DueRejections {
  const result: DueRejections = { due: [], skipped: [], issues: [] };
  for (const rejection of rejections) {
    const attempts = stateOf(rejection.jobId)?.attempts ?? [];
    const latest = attempts.at(-1)?.attempt ?? 0;
    const decided = attempts.find((attempt) => attempt.attempt === rejection.attempt);
    if (decided === undefined || rejection.attempt > latest) {
      result.issues.push({
        severity: 'error',
        code: 'decision-unknown-attempt',
        jobId: rejection.jobId,
        message: `the rejection of job "${rejection.jobId}" was made on attempt ${rejection.attempt}, but this run's state has ${latest === 0 ? 'no attempt' : `attempts up to ${latest}`} of it`,
        location: rejection.location,
        hint: 'are these the decisions of this state (--state-dir, --state) and run (--run)?',
      });
    } else if (decided.payloadHash !== rejection.payloadHash) {
      result.issues.push({
        severity: 'error',
        code: 'decision-other-payload',
        jobId: rejection.jobId,
        message: `the rejection of job "${rejection.jobId}" was made on a payload (hash ${rejection.payloadHash.slice(0, 12)}…) that attempt ${rejection.attempt} of this run did not send (${decided.payloadHash.slice(0, 12)}…)`,
        location: rejection.location,
        hint: 'are these the decisions of this state (--state-dir, --state) and run (--run)?',
      });
    } else if (rejection.attempt < latest) {
      result.skipped.push({
        rejection,
        current: latest,
        message: `${rejection.jobId}: rejected on attempt ${rejection.attempt}, already re-generated (attempt ${latest} is its latest): skipped, not paid for again.`,
      });
    } else {
      result.due.push(rejection);
    }
  }
  return result;
}

/**
 * The manifest's jobs a set of rejections selects, in manifest order, and the ids left out (as
 * `--only` would leave them out).
 */
export function selectRejectedJobs<T extends { id: string }>(
  jobs: readonly T[],
  rejections: readonly Rejection[],
): { selected: T[]; leftOut: string[] } {
  const wanted = new Set(rejections.map((rejection) => rejection.jobId));
  const selected: T[] = [];
  const leftOut: string[] = [];
  for (const job of jobs) {
    if (wanted.has(job.id)) selected.push(job);
    else leftOut.push(job.id);
  }
  return { selected, leftOut };
}
