import { createFileInfoReader } from '../catalog/read-file-info.js';
import { loadCatalog } from '../catalog/load-catalog.js';
import { streamJobs, type ExpandContext } from '../manifest/expand-jobs.js';
import { replayJobs } from '../manifest/replay-jobs.js';
import { loadManifest } from '../manifest/load-manifest.js';
import type { ValidationIssue } from '../manifest/types.js';
import type { CostReportView } from '../plan/job-table.js';
import { readLastPayloads } from '../plan/payload-diff.js';
import { streamPlan, type StreamPlanInput } from '../plan/stream-plan.js';
import { DEFAULT_MAX_JOBS } from '../manifest/check-job-count.js';
import { addTargetingToReport } from '../plan/targeting-report.js';
import type { ServiceClient } from '../service/service-client.js';
import type { Model } from '../service/types.js';
import { readStoredRun } from '../state/index.js';
import type { CommandContext } from './context.js';
import { DEFAULT_MAX_ATTEMPTS, readCostAccount, readCostOptions } from './cost-check.js';
import { toPrepareOptions } from './prepare-plan.js';
import { runDateOf } from './run-date.js';
import { readSecretGuard } from './read-secrets.js';
import { loadVarOverrides } from './var-options.js';
import { NO_TARGETING, type Targeting } from '../plan/select-jobs.js';
import { readSchedule } from '../plan/schedule.js';
import { diffDataOption, type DiffDataOptions } from './catalog-origin.js';
import type { RunPlanOptions } from './run-plan-options.js';

/** How a large plan is split over two threads (`plan-split.ts`). */
export interface PlanSplitOptions {
  /** `RUNNER_PLAN_SPLIT_MIN_JOBS`: jobs from which the plan is split; 0: never. @default SPLIT_MIN_JOBS */
  splitMinJobs?: number;
}

/**
 * Jobs from which `runner plan` splits its jobs over two threads (`plan-split.ts`); 0: never.
 * `RUNNER_PLAN_SPLIT_MIN_JOBS` sets it (tests force the split on small manifests with it). Off until
 * the split is measured on a quiet machine: under load it costs more than it saves (bench/README.md,
 * "plan on two threads").
 */
export const SPLIT_MIN_JOBS = 0;

/** Only a plan of every job is split: targeting's ids are checked against the whole manifest. */
function untargeted(targeting: Targeting): boolean {
  return targeting.only.length === 0 && targeting.exclude.length === 0 && targeting.replace.length === 0;
}

/**
 * What {@link planByStreaming} found: every issue of an invalid manifest, the report, or that only the
 * whole-plan path gives the same answer.
 */
export type StreamedPlanOutcome =
  | { ok: false; issues: ValidationIssue[] }
  | { ok: true; issues: ValidationIssue[]; report: CostReportView }
  | { ok: 'whole-plan' };

/**
 * `runner plan` without holding the plan: the manifest's jobs are expanded, checked, priced and
 * dropped one at a time (`streamPlan`), so 1,000,000 jobs cost a compact row each, not a planned job.
 * Same output as the whole-plan path in `runPlan`, which stays for `--show payloads` and
 * `--out-plan` (they need every payload). Returns `ok: 'whole-plan'` for a manifest that does not
 * load: its issues come from that path. Templates see the date the run started (`runDateOf`).
 */
export async function planByStreaming(
  ctx: CommandContext,
  manifestFile: string,
  options: RunPlanOptions & DiffDataOptions & PlanSplitOptions,
  fetchCatalog: () => Promise<Model[]>,
  client: ServiceClient | undefined,
): Promise<StreamedPlanOutcome> {
  const { maxCredits } = options;
  const prepare = toPrepareOptions(manifestFile, options);
  const varInput = await loadVarOverrides(prepare.varFlags ?? { vars: [], varFiles: [] });
  const secrets = await readSecretGuard(ctx);
  const { loaded, issues: loadIssues } = await loadManifest(manifestFile, { checkJobsDespiteErrors: true });
  if (loaded === undefined) return { ok: 'whole-plan' };
  const { manifest } = loaded;

  // As before, a state that cannot be read matters only once the manifest has proved valid.
  let state: Awaited<ReturnType<typeof readStoredRun>> | { error: unknown };
  try {
    state = await readStoredRun({
      manifestFile,
      pipeline: manifest.name,
      runId: options.runId,
      ...options.state,
    });
  } catch (error) {
    state = { error };
  }
  const replay = 'error' in state ? undefined : state.replay;
  const date = runDateOf(replay?.runs ?? []);

  const targeting = prepare.targeting ?? NO_TARGETING;
  const targetingFlags = options.targeting;
  const stateJobs = replay?.jobs ?? new Map();
  const expandContext: ExpandContext = {
    env: ctx.env,
    date,
    varOverrides: varInput.overrides,
    // The plan reads the jobs' params (checks, hashes, diffs) and never changes them.
    shareStaticParams: true,
    ...(secrets === undefined ? {} : { secrets }),
    ...(prepare.maxJobs === undefined ? {} : { maxJobs: prepare.maxJobs }),
  };
  let catalogAsked: Promise<Model[]> | undefined;
  const plan: Omit<StreamPlanInput, 'stream'> = {
    // The report's prompts (`--format json`, `--compare-to`) come from a second expansion, not the heap.
    replay: replayJobs(loaded, expandContext),
    loadIssues,
    varIssues: varInput.issues,
    targeting,
    // Asked once, whether by the split path or the one-thread path after it.
    getCatalog: () =>
      (catalogAsked ??=
        prepare.catalogFile === undefined ? fetchCatalog() : loadCatalog(prepare.catalogFile)),
    catalogContext: {
      locate: (path) => loaded.locate(path),
      ...(loaded.locateKey === undefined ? {} : { locateKey: loaded.locateKey.bind(loaded) }),
      manifestDir: loaded.dir,
      fileInfo: createFileInfoReader(),
      checkImageEndpointModel: true,
    },
    costOptions: readCostOptions({
      maxAttempts: manifest.retry?.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      previousJobs: stateJobs,
      ...(targetingFlags.replace === undefined ? {} : { replace: targetingFlags.replace }),
      retryFailed: options.retryFailed,
      resendUncertain: options.resendUncertain,
      ...(maxCredits === undefined ? {} : { maxCredits }),
      ...diffDataOption(ctx, options),
    }),
    ...(stateJobs.size > 0 ? { lastPayloads: readLastPayloads(stateJobs) } : {}),
  };
  const splitMinJobs = options.splitMinJobs ?? SPLIT_MIN_JOBS;
  // Loaded only when a split may be asked for: a plan that is not split loads no more modules.
  const total =
    splitMinJobs > 0 && stateJobs.size === 0 && untargeted(targeting)
      ? (await import('../manifest/job-positions.js')).countAddressableJobs(loaded)
      : undefined;
  const result =
    (total !== undefined &&
    total >= splitMinJobs &&
    total >= 2 &&
    total <= (expandContext.maxJobs ?? manifest.maxJobs ?? DEFAULT_MAX_JOBS) &&
    loadIssues.length === 0 &&
    varInput.issues.length === 0
      ? await (await import('./plan-split.js')).planInParts({ loaded, expandContext, total, plan })
      : undefined) ?? (await streamPlan({ ...plan, stream: streamJobs(loaded, expandContext) }));
  if (!result.ok) return result;
  if ('error' in state) throw state.error;

  const costed = result.tally.finish(
    {
      pipeline: manifest.name,
      manifestFile: loaded.file,
      warnings: result.issues,
      ...(manifest.budget === undefined ? {} : { budget: manifest.budget }),
      ...(manifest.schedule === undefined ? {} : { schedule: readSchedule(manifest.schedule) }),
    },
    await readCostAccount(client),
  );
  const withChanges = result.changes === undefined ? costed : { ...costed, changes: result.changes };
  return {
    ok: true,
    issues: result.issues,
    report: addTargetingToReport(withChanges, targetingFlags, result.leftOut),
  };
}
