import { Worker } from 'node:worker_threads';
import { RunnerError } from '../errors.js';
import { streamJobs, type ExpandContext } from '../manifest/expand-jobs.js';
import type { LoadedManifest } from '../manifest/types.js';
import { MAX_LISTED_JOBS } from '../plan/render-report.js';
import { streamPlan, type StreamPlanInput, type StreamPlanResult } from '../plan/stream-plan.js';
import type { PartRows } from '../plan/tally-part.js';
import type { PartInput, PartOutcome } from './plan-part.js';
import type { PartMessage, PartRequest } from './plan-part-protocol.js';

/**
 * The share of the jobs the main thread plans. The worker starts later (it loads its bundle and
 * the catalog's validators first) and also renders the other part's ids (the whole plan's id check).
 */
const MAIN_SHARE = 0.52;

/** What {@link planInParts} needs: the one-thread path's input, without its stream. */
export interface SplitPlanInput {
  loaded: LoadedManifest;
  expandContext: ExpandContext;
  /** `countAddressableJobs` of the manifest. */
  total: number;
  plan: Omit<StreamPlanInput, 'stream' | 'firstPosition'>;
}

/**
 * `streamPlan` of a large manifest on two threads, split by position: the main thread plans the
 * first jobs while a worker plans the rest (`plan-part.ts`) and checks the whole plan's ids; the
 * worker's sums are added to the main thread's tally, whose report then lists the worker's rows as
 * JSON the worker writes (`PartRows`, the tally's `SplitJobList`). Only a clean plan is kept: any
 * issue in either part (or across them) gives `undefined`, and the caller plans on one thread, whose
 * issues are the ones reported, in its order. A worker that fails fails the plan (a `RunnerError`),
 * never a part of a report.
 */
export async function planInParts(input: SplitPlanInput): Promise<StreamPlanResult | undefined> {
  const { loaded, expandContext, total, plan } = input;
  let catalog;
  try {
    catalog = await plan.getCatalog();
  } catch {
    // The one-thread path reports the manifest's own issues before the catalog's failure.
    return undefined;
  }
  // The text and markdown reports list the first jobs: they are the main thread's.
  const split = Math.max(MAX_LISTED_JOBS + 1, Math.round(total * MAIN_SHARE));
  if (split >= total) return undefined;
  const partInput: PartInput = {
    file: loaded.file,
    dir: loaded.dir,
    manifest: loaded.manifest,
    expand: expandContext,
    range: { start: split, end: total },
    catalog,
    costOptions: {
      maxAttempts: plan.costOptions.maxAttempts,
      ...(plan.costOptions.diffData === undefined ? {} : { diffData: plan.costOptions.diffData }),
    },
  };
  const part = startPart(partInput);
  let kept = false;
  try {
    const result = await streamPlan({
      ...plan,
      stream: streamJobs(loaded, expandContext, { start: 0, end: split }),
    });
    if (!result.ok || result.issues.length > 0) return undefined;
    const outcome = await part.outcome;
    if (!outcome.clean || !result.tally.addPart(outcome.part, part.rows)) return undefined;
    kept = true;
    return result;
  } finally {
    if (!kept) await part.rows.close();
  }
}

/** A part's worker, started: its outcome, then its rows. */
interface StartedPart {
  outcome: Promise<PartOutcome>;
  rows: PartRows;
}

function startPart(input: PartInput): StartedPart {
  const worker = new Worker(new URL('./plan-part-worker.js', import.meta.url), { workerData: input });
  // Kept referenced: while the main thread awaits it, its exit must be heard (an unreferenced worker
  // that dies lets the process end with nothing written). `close` ends it once the report is out,
  // and the CLI exits when its command is done whatever is left.
  const which = `jobs ${input.range.start + 1} to ${input.range.end}`;
  const hint =
    'plan again; RUNNER_PLAN_SPLIT_MIN_JOBS=0 plans on one thread. If it fails again, report it with the manifest';
  let failure: RunnerError | undefined;
  let tallied: ((outcome: PartOutcome) => void) | undefined;
  let failed: ((error: RunnerError) => void) | undefined;
  const outcome = new Promise<PartOutcome>((resolve, reject) => {
    tallied = resolve;
    failed = reject;
  });
  // Awaited by the caller unless the main thread's own part fails first.
  outcome.catch(() => undefined);
  /** Batches received and not yet taken, and the reader waiting for the next. */
  const queue: (Uint8Array | null)[] = [];
  let waiting: (() => void) | undefined;
  let closed = false;
  const wake = (): void => {
    const resume = waiting;
    waiting = undefined;
    resume?.();
  };
  const fail = (error: RunnerError): void => {
    failure ??= error;
    failed?.(failure);
    wake();
  };
  worker.on('message', (message: PartMessage) => {
    if (message.type === 'tallied') tallied?.(message.outcome);
    else {
      queue.push(message.type === 'json' ? message.bytes : null);
      wake();
    }
  });
  worker.on('error', (error) => {
    fail(
      new RunnerError('INTERNAL', `The plan's second thread (${which}) failed: ${error.message}`, { hint }),
    );
  });
  worker.on('exit', (code) => {
    if (closed) return;
    fail(
      new RunnerError(
        'INTERNAL',
        `The plan's second thread (${which}) stopped (exit code ${code}) before it gave all its jobs.`,
        { hint },
      ),
    );
  });
  const ask = (request: PartRequest): void => worker.postMessage(request);
  const rows: PartRows = {
    count: input.range.end - input.range.start,
    async *json(covered, paramsRefs) {
      ask({ type: 'json', covered, paramsRefs });
      for (;;) {
        if (queue.length === 0 && failure === undefined)
          await new Promise<void>((resolve) => (waiting = resolve));
        if (failure !== undefined) throw failure;
        const bytes = queue.shift();
        if (bytes === null || bytes === undefined) return;
        yield bytes;
        ask({ type: 'more' });
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await worker.terminate();
    },
  };
  return { outcome, rows };
}
