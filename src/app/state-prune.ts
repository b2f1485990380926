import { UsageError } from '../errors.js';
import { validateManifestOffline } from '../manifest/validate-manifest.js';
import {
  type AcquireLockOptions,
  type DeleteRunResult,
  moveCommand,
  type PrunedRun,
  selectRunsToPrune,
  stateStoreFor,
} from '../state/index.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import { todayUtc } from './prepare-plan.js';
import type { StateOptions } from './run-options.js';
import type { RenderIssues } from './views.js';
import { readableUtcTime } from '../readable-time.js';

/** Which runs `runner state prune` deletes, as the command line gave them. */
export interface PruneOptions {
  /** `--keep-runs N`: keep the pipeline's N newest runs. */
  keepRuns?: number;
  /** `--older-than`: a run last applied longer ago than `ms` (`30d`), or before the date `before` (clock ms). */
  olderThan?: { ms: number } | { before: number };
  /** `--pipeline NAME`: the pipeline whose runs are pruned (default: the manifest's). */
  pipeline?: string;
  /** `--dry-run`: list what would go, delete nothing. */
  dryRun: boolean;
  /** `--force`: also delete runs with paid work unfinished (never one an apply holds). */
  force: boolean;
  json: boolean;
  /** `RUNNER_LOCK_STALE_MS` (src/cli/parse/state-env.ts): the folder lock a prune takes on each run. */
  lock?: AcquireLockOptions;
}

/** What prune did, as `--json` prints it (schema version 1). */
export interface PruneView {
  schemaVersion: 1;
  pipeline: string;
  stateRoot: string;
  dryRun: boolean;
  /** The runs deleted (with `--dry-run`: that would be), oldest first. */
  pruned: PrunedRun[];
  /** Runs the rule selected that were kept, and why. */
  kept: { runId: string; reason: string; live: boolean }[];
  /** Runs of the pipeline left, the kept ones included. */
  remaining: number;
}

/**
 * `runner state prune [FILE] --keep-runs N | --older-than 30d [--pipeline NAME] [--dry-run] [--force]`:
 * deletes old runs' state (never their results) through `StateStore.deleteRun`, on either backend. A
 * run an apply holds is always kept; one with paid work unfinished is kept unless `--force`. Kept runs
 * are named with the reason and exit 0: keeping them is the rule, not a failure.
 */
export async function runStatePrune(
  ctx: CommandContext,
  manifestFile: string,
  options: { state: StateOptions; prune: PruneOptions },
  view: { issues: RenderIssues },
  now: () => number = Date.now,
): Promise<Outcome> {
  const { prune, state } = options;
  if (prune.keepRuns === undefined && prune.olderThan === undefined) {
    throw new UsageError(
      'runner state prune needs a rule: --keep-runs N, --older-than 30d (or a date), or both.',
      {
        hint: 'e.g. runner state prune pipelines/nightly.yaml --keep-runs 7 --dry-run',
      },
    );
  }
  const stateUrl = state.stateUrl;
  const stateDir = state.stateDir;
  let pipeline = prune.pipeline;
  if (manifestFile === '') {
    if (pipeline === undefined || (stateUrl === undefined && stateDir === undefined)) {
      throw new UsageError(
        'runner state prune needs a manifest (its pipeline, and its .runner/ folder), or --pipeline NAME with --state-dir DIR or --state URL.',
      );
    }
  } else if (pipeline === undefined) {
    const offline = await validateManifestOffline(manifestFile, { env: ctx.env, date: todayUtc() });
    if (offline.loaded === undefined) {
      ctx.output.err(view.issues(offline.issues, manifestFile, ctx.output.style));
      return 'invalid-input';
    }
    pipeline = offline.loaded.manifest.name;
  }
  // Without a manifest the state folder is given: the path only anchors `.runner/`, never read.
  const anchor = manifestFile === '' ? (stateDir ?? '.') : manifestFile;
  const place = {
    manifestFile: anchor,
    pipeline,
    ...(stateDir === undefined ? {} : { stateDir }),
    ...(stateUrl === undefined ? {} : { stateUrl }),
  };
  const store = await stateStoreFor(place);
  if (!prune.dryRun) await store.removeDeletionLeftovers?.(place);
  const listed = await store.listRuns(place);
  const before =
    prune.olderThan === undefined
      ? undefined
      : 'ms' in prune.olderThan
        ? now() - prune.olderThan.ms
        : prune.olderThan.before;
  const selected = selectRunsToPrune(listed.runs, {
    ...(prune.keepRuns === undefined ? {} : { keepRuns: prune.keepRuns }),
    ...(before === undefined ? {} : { before }),
  });
  const result: PruneView = {
    schemaVersion: 1,
    pipeline,
    stateRoot: listed.stateRoot,
    dryRun: prune.dryRun,
    pruned: [],
    kept: [],
    remaining: listed.runs.length,
  };
  for (const run of selected) {
    let done: DeleteRunResult;
    try {
      done = await store.deleteRun(
        { ...place, runId: run.runId },
        {
          dryRun: prune.dryRun,
          force: prune.force,
          ...(prune.lock === undefined ? {} : { lock: prune.lock }),
        },
      );
    } catch (error) {
      done = { kind: 'kept', runId: run.runId, live: false, reason: (error as Error).message };
    }
    if (done.kind === 'deleted') {
      result.pruned.push(done.run);
      result.remaining--;
    } else if (done.kind === 'kept')
      result.kept.push({ runId: done.runId, reason: done.reason, live: done.live });
  }
  if (prune.json) ctx.output.out(JSON.stringify(result, null, 2));
  else ctx.output.out(renderPrune(result, { manifestFile, state }));
  return 'done';
}

/** The text of `state prune`: what went (or would), what it means, what was kept and why. */
export function renderPrune(view: PruneView, where: { manifestFile: string; state: StateOptions }): string {
  const lines: string[] = [];
  const runs = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
  const of = `of pipeline "${view.pipeline}" in ${view.stateRoot}`;
  if (view.pruned.length === 0) {
    lines.push(`Nothing ${view.dryRun ? 'would be' : 'was'} pruned ${of}: ${runs(view.remaining)} kept.`);
  } else {
    lines.push(
      view.dryRun
        ? `Would prune ${runs(view.pruned.length)} ${of} (--dry-run: nothing was deleted):`
        : `Pruned ${runs(view.pruned.length)} ${of}; ${runs(view.remaining)} left:`,
    );
    for (const run of view.pruned) {
      const lost = run.lost === undefined ? '' : `  LOST: ${run.lost}`;
      lines.push(
        `  ${run.runId}  started ${run.startedAt === undefined ? '?' : readableUtcTime(run.startedAt)}  last applied ${run.lastAppliedAt === undefined ? '?' : readableUtcTime(run.lastAppliedAt)}  ${run.jobs} jobs  ${run.creditsSpent} credits  ${formatBytes(run.bytes)}${lost}`,
      );
    }
    lines.push(
      "Only state is deleted, never results: each run's files stay in its output folder. A pruned run applied again starts afresh: its jobs are created and paid for again.",
    );
  }
  for (const kept of view.kept) {
    const finish = moveCommand(['apply'], { ...where, runId: kept.runId, stateDir: where.state.stateDir });
    lines.push(
      kept.live
        ? `Kept run "${kept.runId}": ${kept.reason}. Prune it once that apply has ended.`
        : /^it has /.test(kept.reason)
          ? `Kept run "${kept.runId}": ${kept.reason}. Finish it first (${finish}), or prune it with --force, which deletes the record of that paid work: its results could then not be fetched or followed without paying again.`
          : `Kept run "${kept.runId}": ${kept.reason}.`,
    );
  }
  return lines.join('\n');
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
