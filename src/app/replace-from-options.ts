import { UsageError } from '../errors.js';
import type { ValidationIssue } from '../manifest/types.js';
import { readDecisionsFile } from '../review/read-decisions.js';
import {
  collectRejections,
  selectDueRejections,
  type Rejection,
  type StateAttempts,
} from '../review/select-rejected.js';
import type { PrepareOptions } from './prepare-plan.js';
import type { Targeting } from '../plan/select-jobs.js';

/** What `--replace-from FILE` gave: nothing, the decisions to prepare the plan with, or bad input. */
export type ReplaceFrom =
  | { given: false }
  | { given: true; ok: false; file: string; issues: ValidationIssue[] }
  | { given: true; ok: true; rejected: number; prepare: NonNullable<PrepareOptions['replaceFrom']> };

/**
 * Reads `--replace-from FILE` of plan and apply (#19.3). It selects the jobs itself (the rejected
 * ones), so `--only`, `--exclude` and `--replace` beside it are a usage error, and so are
 * `--download-only` and `--out-plan`; a file that is not usable decisions is returned as issues, for
 * the command to report with exit 2 before anything is asked of the service.
 */
export async function readReplaceFrom(
  options: { replaceFrom?: string; targeting: Targeting; downloadOnly?: boolean; outPlan?: string },
  runId: string,
): Promise<ReplaceFrom> {
  const file = options.replaceFrom;
  if (file === undefined) return { given: false };
  const { targeting } = options;
  const contradicting = [
    targeting.only.length > 0 ? '--only' : undefined,
    targeting.exclude.length > 0 ? '--exclude' : undefined,
    targeting.replace.length > 0 ? '--replace' : undefined,
    options.downloadOnly === true ? '--download-only' : undefined,
    options.outPlan !== undefined ? '--out-plan' : undefined,
  ].filter((flag) => flag !== undefined);
  if (contradicting.length > 0) {
    throw new UsageError(
      `--replace-from selects the jobs to run again itself (those the decisions reject), so it cannot be combined with ${contradicting.join(', ')}.`,
      { hint: 'Edit the decisions in the report (or the file) to choose other jobs.' },
    );
  }
  const read = await readDecisionsFile(file);
  if (!read.ok) return { given: true, ok: false, file, issues: read.issues };
  const rejected = read.decisions.decisions.filter((decision) => decision.decision === 'rejected').length;
  if (rejected === 0) {
    // Nothing to create, so the manifest is not read (the plan checks a file that rejects jobs against
    // its pipeline and job ids); what the file says of itself is checked all the same: decisions of
    // another run, or a job or result decided twice, are refused (exit 2), not "nothing to do" (#32.7).
    const { issues } = collectRejections(read, {
      runId,
      pipeline: read.decisions.pipeline,
      jobIds: read.decisions.decisions.map((decision) => decision.jobId),
    });
    if (issues.length > 0) return { given: true, ok: false, file, issues };
  }
  return { given: true, ok: true, rejected, prepare: { read, runId } };
}

/** The `--replace-from` jobs to re-generate now, as apply and plan pass them on. */
export interface DueReplacements {
  /** Ids for `--replace`: the rejected jobs whose rejected attempt is still their latest. */
  replace: string[];
  /** For the executor: the attempt each replaces and the reviewer's note, journaled with it. */
  rejections: Map<string, { attempt: number; note?: string }>;
  /** One line per job re-generated since its rejection: skipped, never paid for twice. */
  notes: string[];
  issues: ValidationIssue[];
}

/**
 * The prepared plan's rejections against the run's state as it is now (under apply's lock): see
 * `selectDueRejections`. Undefined without `--replace-from`.
 */
export function dueReplacements(
  rejections: readonly Rejection[] | undefined,
  jobs: ReadonlyMap<string, StateAttempts>,
): DueReplacements | undefined {
  if (rejections === undefined) return undefined;
  const { due, skipped, issues } = selectDueRejections(rejections, (id) => jobs.get(id));
  return {
    replace: due.map((rejection) => rejection.jobId),
    rejections: new Map(
      due.map((rejection) => [
        rejection.jobId,
        { attempt: rejection.attempt, ...(rejection.note === undefined ? {} : { note: rejection.note }) },
      ]),
    ),
    notes: skipped.map((skip) => skip.message),
    issues,
  };
}
