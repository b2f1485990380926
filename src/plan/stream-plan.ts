import {
  createJobValidator,
  hashCheckedJob,
  type CatalogValidationContext,
  type CheckedJob,
} from '../catalog/validate-job.js';
import { isPromptTooShort } from '../catalog/image-rules.js';
import { collapseIssues } from '../manifest/collapse-issues.js';
import type { JobStream } from '../manifest/expand-jobs.js';
import { sortIssues } from '../manifest/sort-issues.js';
import type { ExpandedJob, ValidationIssue } from '../manifest/types.js';
import type { Model } from '../service/types.js';
import type { CostOptions, PreviousJobState } from './classify-job.js';
import { createCostTally, type CostTally, type TallyJob } from './cost-tally.js';
import type { PayloadHashes } from '../catalog/payload-hash.js';
import { diffPayloads, snapshotPayload, type FieldChange, type LastPayloads } from './payload-diff.js';
import type { ReplayJobs } from './job-table.js';
import { createShownPayloads } from './shown-payloads.js';
import { createJobSelector, describeTargetProblems, type Targeting } from './select-jobs.js';

/** What {@link streamPlan} needs; the catalog is the only thing it waits for. */
export interface StreamPlanInput {
  /** From `streamJobs`: the manifest's jobs, expanded as they are read. */
  stream: JobStream;
  /** Issues found before expansion (reading, parsing, the schema), in the order found. */
  loadIssues: readonly ValidationIssue[];
  /** Issues of `--var` / `--var-file`. */
  varIssues: readonly ValidationIssue[];
  targeting: Targeting;
  /** Asked once, when the first targeted job needs checking against it. */
  getCatalog: () => Promise<readonly Model[]>;
  catalogContext: CatalogValidationContext;
  /** The previous state and flags, as `readCostOptions` builds them. */
  costOptions: CostOptions;
  /** The payload each job of the state last asked for; present when a state was read. */
  lastPayloads?: LastPayloads;
  /**
   * The jobs of `stream` again, in the same order (`replayJobs`): the report's job list then keeps no
   * prompt and reads each back from them when it is written (see `createJobTable`).
   */
  replay?: ReplayJobs;
}

/** Either every issue (some are errors), or the running sums of a valid plan. */
export type StreamPlanResult =
  | { ok: false; issues: ValidationIssue[] }
  | {
      ok: true;
      /** Warnings only, sorted and collapsed. */
      issues: ValidationIssue[];
      catalog: readonly Model[];
      /** The priced jobs; `tally.finish` gives the report once the account is known. */
      tally: CostTally;
      /** Ids `--only` / `--exclude` left out, in manifest order. */
      leftOut: string[];
      /** Changed jobs against `lastPayloads`, in plan order (only when it was given). */
      changes?: { id: string; changes: FieldChange[] }[];
    };

/**
 * The plan line of `runner plan` one job at a time: expand → target → check against the catalog →
 * price, keeping no job once it is priced, only the tally's running sums and a compact row per job.
 * Gives the same issues, in the same order, and the same figures as `preparePlan` followed by
 * `estimateCost`, whose whole-plan path stays for the features that need every payload.
 */
export async function streamPlan(input: StreamPlanInput): Promise<StreamPlanResult> {
  const { stream } = input;
  const selector = createJobSelector(input.targeting);
  let tally: CostTally | undefined;
  let catalog: readonly Model[] | undefined;
  let catalogError: { error: unknown } | undefined;
  let validator: ReturnType<typeof createJobValidator> | undefined;
  const changes: { id: string; changes: FieldChange[] }[] = [];
  const shownPayload = input.costOptions.diffData === undefined ? undefined : createShownPayloads();
  let selected = 0;
  let position = -1;
  for (const job of stream.jobs) {
    position++;
    if (!selector.keep(job.id)) continue;
    selected++;
    if (catalogError !== undefined) continue;
    if (validator === undefined) {
      try {
        catalog = await input.getCatalog();
      } catch (error) {
        catalogError = { error };
        continue;
      }
      // The jobs' checked params are only read here (hashed, shown, compared): they may share them.
      validator = createJobValidator(catalog, input.catalogContext, {
        shareChecked: true,
        promptHasWords: createPromptWordsCheck(stream),
      });
      tally = createCostTally(
        catalog,
        input.costOptions,
        (ref) => stream.index.matrixValuesAt(ref),
        input.replay,
      );
    }
    const checked = validator.check(job);
    if (checked === undefined) continue;
    const hashes = hashesToCompare(job, checked, input.costOptions.previous?.get(job.id));
    // Written out, not spread: spreading two objects into each job's line cost more than the line.
    const line: TallyJob = {
      id: job.id,
      kind: job.kind,
      model: job.model,
      estimatedCredits: checked.credits,
      payloadHash: hashes.payloadHash,
      matrixValues: job.matrixValues,
      ref: position,
    };
    if (hashes.payload !== undefined) line.payload = hashes.payload;
    if (shownPayload !== undefined) line.shown = shownPayload(job, checked);
    tally!.add(line);
    // A job the state does not know has no hash here, and no earlier payload either.
    const before = input.lastPayloads?.changedFrom(job.id, hashes.payloadHash);
    if (before !== undefined) {
      const after = snapshotPayload({ ...job, params: checked.params });
      const diff = diffPayloads(before, after);
      if (diff.length > 0) changes.push({ id: job.id, changes: diff });
    }
  }

  const ids = { [Symbol.iterator]: () => stream.index.ids() };
  const selection = selector.finish({ ids, has: (id) => stream.index.has(id) });
  const stageOne = [
    ...sortIssues([...input.loadIssues, ...stream.issues]),
    ...input.varIssues,
    ...describeTargetProblems(selection.problems),
  ];
  if (selected === 0 || selection.problems.length > 0) {
    return { ok: false, issues: collapseIssues(sortIssues(stageOne)) };
  }
  if (catalogError !== undefined) throw catalogError.error;
  const issues = collapseIssues(sortIssues([...stageOne, ...validator!.issues]));
  if (issues.some((issue) => issue.severity === 'error')) return { ok: false, issues };
  return {
    ok: true,
    issues,
    catalog: catalog!,
    tally: tally!,
    leftOut: selection.leftOut,
    ...(input.lastPayloads === undefined ? {} : { changes }),
  };
}

/**
 * Whether a job's prompt surely has words enough, from its entry's literal text (one check per entry,
 * not a trim and a regex per job): a literal part that is not too short is in every prompt of it.
 */
function createPromptWordsCheck(stream: JobStream): (job: ExpandedJob) => boolean {
  let lastEntry = -1;
  let lastAnswer = false;
  return (job) => {
    if (job.specIndex !== lastEntry) {
      lastEntry = job.specIndex;
      lastAnswer = stream.promptLiterals(job.specIndex)?.some((text) => !isPromptTooShort(text)) === true;
    }
    return lastAnswer;
  };
}

/** A job the state does not know is not compared by its hash: it has none (read only, never changed). */
const NO_HASHES: PayloadHashes = Object.freeze({ payloadHash: '' });

/**
 * The hashes a job's report row needs. Hashing is the costliest step of a job: only a job the state
 * knows is compared by its hash (its legacy hash, only if `matchesPayload` asks for it).
 */
function hashesToCompare(
  job: ExpandedJob,
  checked: CheckedJob,
  previous: PreviousJobState | undefined,
): PayloadHashes {
  if (previous === undefined) return NO_HASHES;
  return {
    payloadHash: hashCheckedJob(job, checked),
    payload: { kind: job.kind, model: job.model, prompt: job.prompt, params: checked.params },
  };
}
