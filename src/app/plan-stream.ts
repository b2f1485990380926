import { createFileInfoReader } from '../catalog/read-file-info.js';
import { loadCatalog } from '../catalog/load-catalog.js';
import { streamJobs, type ExpandContext } from '../manifest/expand-jobs.js';
import { replayJobs } from '../manifest/replay-jobs.js';
import { loadManifest } from '../manifest/load-manifest.js';
import type { ValidationIssue } from '../manifest/types.js';
import type { CostReportView } from '../plan/job-table.js';
import { readLastPayloads } from '../plan/payload-diff.js';
import { streamPlan } from '../plan/stream-plan.js';
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
import { NO_TARGETING } from '../plan/select-jobs.js';
import { readSchedule } from '../plan/schedule.js';
import { diffDataOption, type DiffDataOptions } from './catalog-origin.js';
import type { RunPlanOptions } from './run-plan-options.js';

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
  options: RunPlanOptions & DiffDataOptions,
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
  const result = await streamPlan({
    stream: streamJobs(loaded, expandContext),
    // The report's prompts (`--format json`, `--compare-to`) come from a second expansion, not the heap.
    replay: replayJobs(loaded, expandContext),
    loadIssues,
    varIssues: varInput.issues,
    targeting,
    getCatalog: () => (prepare.catalogFile === undefined ? fetchCatalog() : loadCatalog(prepare.catalogFile)),
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
  });
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
