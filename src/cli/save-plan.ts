import { readFile } from 'node:fs/promises';
import type { CostReport } from '../plan/cost-report.js';
import { buildSavedPlan, sha256 } from '../plan/saved-plan.js';
import type { CommandContext } from './context.js';
import type { Prepared } from './prepare-plan.js';
import { readPrepareOptions } from './prepare-plan.js';
import { readRunId } from './run-options.js';
import { manifestPathForPlan, writeSavedPlan } from './saved-plan-io.js';
import { NO_TARGETING } from '../plan/select-jobs.js';
import { loadVarOverrides } from './var-options.js';
import type { JobState } from '../state/job-state.js';
import { redactSecrets, secretValues } from '../manifest/secret-guard.js';
import { readSecretGuard } from './read-secrets.js';

/** `plan --out-plan FILE`: writes the exact plan for a later `runner apply FILE`. */
export async function savePlanIfAsked(
  ctx: Pick<CommandContext, 'output' | 'env' | 'global'>,
  options: Record<string, unknown>,
  manifestFile: string,
  prepared: Extract<Prepared, { ok: true }>,
  report: CostReport,
  stateJobs: ReadonlyMap<string, JobState>,
): Promise<void> {
  const outPlan = typeof options.outPlan === 'string' ? options.outPlan : undefined;
  if (outPlan === undefined) return;
  const prepareOptions = readPrepareOptions(manifestFile, options, prepared.date);
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
    runId: readRunId(options),
    date: prepared.date,
    inputs: {
      targeting: prepareOptions.targeting ?? NO_TARGETING,
      replaceAfterAttempts: Object.fromEntries(
        (prepareOptions.targeting?.replace ?? []).map((id) => [id, stateJobs.get(id)?.attempts.length ?? 0]),
      ),
      vars,
      ...(prepareOptions.maxJobs === undefined ? {} : { maxJobs: prepareOptions.maxJobs }),
    },
    now: new Date(),
  });
  // The key may arrive through `--var` (or a var file, a path, a job id): the plan file holds it only as
  // [REDACTED], as expansion renders it into the jobs, so applying the plan sends the same payloads.
  const { value: redacted } = redactSecrets(saved, secretValues(await readSecretGuard(ctx)));
  await writeSavedPlan(outPlan, redacted);
  ctx.output.err(`Saved the plan to ${outPlan}; \`runner apply ${outPlan}\` applies exactly it.`);
}
