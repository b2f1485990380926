import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ExitCode } from '../../errors.js';
import { validateManifestOffline } from '../../manifest/validate-manifest.js';
import { renderReportHtml } from '../../report/render-html.js';
import { buildReportData } from '../../report/report-data.js';
import { writeWhole } from '../../report/write-report-files.js';
import { resolveOutputDir } from '../apply-options.js';
import type { CommandContext } from '../context.js';
import { parseStringOption } from '../parse-options.js';
import { todayUtc } from '../prepare-plan.js';
import { renderIssues } from '../render/issues.js';
import { readExistingRunState, targetRunJobs } from '../read-only-run.js';
import { readSecretGuard } from '../read-secrets.js';
import { readRunId, readStateDir } from '../run-options.js';
import { readTargeting } from '../targeting-options.js';
import { loadVarOverrides, readVarFlags } from '../var-options.js';

/**
 * `runner report FILE`: the HTML gallery of a run from its state journal, read-only (no lock, no
 * network), like `runner status`: the same run lookup, `--only` / `--exclude`, and a run without
 * state is an error. Prompts are rendered with the run's own `{{ date }}`.
 */
export async function runReport(ctx: CommandContext, args: string[], options: Record<string, unknown>) {
  const [manifestFile = ''] = args;
  const runId = readRunId(options);
  const varInput = await loadVarOverrides(readVarFlags(options));
  const secrets = await readSecretGuard(ctx);
  const expand = (date: string) =>
    validateManifestOffline(manifestFile, { varOverrides: varInput.overrides, env: ctx.env, date, secrets });
  let offline = await expand(todayUtc());
  const { loaded } = offline;
  if (loaded === undefined || varInput.issues.some((issue) => issue.severity === 'error')) {
    ctx.output.err(renderIssues([...varInput.issues, ...offline.issues], manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  const where = { manifestFile, pipeline: loaded.manifest.name, runId, ...readStateDir(options) };
  const replay = await readExistingRunState(ctx, where);
  const runDate = replay.runs[0] === undefined ? todayUtc() : todayUtc(new Date(replay.runs[0].at));
  if (runDate !== todayUtc()) offline = await expand(runDate);
  const targeted = targetRunJobs(
    replay.jobs,
    offline.jobs.map((job) => job.id),
    readTargeting(options),
  );
  if ('issues' in targeted) {
    ctx.output.err(renderIssues(targeted.issues, manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  const kept = new Set(targeted.planIds);

  const resultsDir = resolveOutputDir(ctx, options, {
    manifestDir: loaded.dir,
    manifestOutput: loaded.manifest.output,
    pipeline: loaded.manifest.name,
  });
  const out = parseStringOption(options.out);
  const file = out === undefined ? join(resultsDir, 'report.html') : resolve(ctx.cwd, out);
  const data = buildReportData({
    pipeline: loaded.manifest.name,
    runId,
    manifestFile,
    jobs: offline.jobs.filter((job) => kept.has(job.id)),
    state: targeted.jobs,
    now: new Date(),
  });
  await writeWhole(file, renderReportHtml(data, dirname(file)));
  const near = relative(ctx.cwd, file);
  ctx.output.out(`Report: ${near.startsWith('..') || isAbsolute(near) ? file : near}`);
  return ExitCode.Success;
}
