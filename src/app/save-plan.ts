import { readFile } from 'node:fs/promises';
import type { CostReport } from '../plan/cost-report.js';
import { buildSavedPlan, sha256 } from '../plan/saved-plan.js';
import type { CommandContext } from './context.js';
import type { Prepared } from './prepare-plan.js';
import { toPrepareOptions } from './prepare-plan.js';
import { folderPathForPlan, manifestPathForPlan, writeSavedPlan } from './saved-plan-io.js';
import { rerunCommand } from './rerun-command.js';
import type { RunPlanOptions } from './run-plan-options.js';
import { OUTPUT_ROOT_ENV } from './output-root.js';
import { NO_TARGETING } from '../plan/select-jobs.js';
import { loadVarOverrides } from './var-options.js';
import type { JobState } from '../state/index.js';
import { redactSecrets, secretValues } from '../manifest/secret-guard.js';
import { readSecretGuard } from './read-secrets.js';

/**
 * `plan --out-plan FILE`: writes the exact plan for a later `runner apply FILE`, with everything that
 * decided it (run, state and download folders, targeting, vars, --max-credits, --retry-failed,
 * --resend-uncertain) and what it decided for each job, so the apply needs none of the flags again.
 */
export async function savePlanIfAsked(
  ctx: Pick<CommandContext, 'output' | 'cwd' | 'global' | 'env'>,
  options: RunPlanOptions & { outPlan?: string },
  manifestFile: string,
  prepared: Extract<Prepared, { ok: true }>,
  report: CostReport,
  stateJobs: ReadonlyMap<string, JobState>,
): Promise<void> {
  const { outPlan, output, maxCredits } = options;
  if (outPlan === undefined) return;
  const prepareOptions = toPrepareOptions(manifestFile, options, prepared.date);
  const { stateDir } = options.state;
  const outputRoot = ctx.global.simulate === true ? undefined : ctx.env[OUTPUT_ROOT_ENV];
  const declared = prepared.loaded.manifest.vars ?? {};
  const overrides = await loadVarOverrides(prepareOptions.varFlags ?? { vars: [], varFiles: [] });
  const vars: Record<string, string | number | boolean> = {};
  // Undeclared names were only warnings from a var file: they shaped nothing, so they are not kept.
  for (const [name, override] of overrides.overrides)
    if (Object.hasOwn(declared, name)) vars[name] = override.value;
  const saved = buildSavedPlan({
    plan: prepared.plan,
    report,
    catalog: prepared.catalog,
    manifest: {
      file: manifestFile,
      path: manifestPathForPlan(outPlan, manifestFile),
      sha256: sha256(await readFile(manifestFile)),
    },
    runId: options.runId,
    date: prepared.date,
    state: stateDir === undefined ? {} : { dir: folderPathForPlan(outPlan, stateDir, ctx.cwd) },
    ...(output === undefined ? {} : { output: folderPathForPlan(outPlan, output, ctx.cwd) }),
    ...(outputRoot === undefined ? {} : { outputRoot: folderPathForPlan(outPlan, outputRoot, ctx.cwd) }),
    inputs: {
      targeting: prepareOptions.targeting ?? NO_TARGETING,
      replaceAfterAttempts: Object.fromEntries(
        (prepareOptions.targeting?.replace ?? []).map((id) => [id, stateJobs.get(id)?.attempts.length ?? 0]),
      ),
      vars,
      ...(prepareOptions.maxJobs === undefined ? {} : { maxJobs: prepareOptions.maxJobs }),
      ...(maxCredits === undefined ? {} : { maxCredits }),
      retryFailed: options.retryFailed,
      resendUncertain: options.resendUncertain,
    },
    now: new Date(),
  });
  // The key may arrive through `--var` (or a var file, a path, a job id): the plan file holds it only as
  // [REDACTED], as expansion renders it into the jobs, so applying the plan sends the same payloads.
  const { value: redacted } = redactSecrets(saved, secretValues(await readSecretGuard(ctx)));
  await writeSavedPlan(outPlan, redacted);
  ctx.output.err(
    `Saved the plan to ${outPlan}; \`${rerunCommand('apply', outPlan, {}, ctx.global)}\` applies exactly it (its run, state, targeting and options included).`,
  );
}
