import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { ExitCode } from '../../errors.js';
import { validateManifestOffline } from '../../manifest/validate-manifest.js';
import { renderReportHtml } from '../../report/render-html.js';
import { buildReportData } from '../../report/report-data.js';
import { writeWhole } from '../../report/write-report-files.js';
import { replayJournal } from '../../state/replay.js';
import { readJournalText, resolveStateDir } from '../../state/state-dir.js';
import { resolveOutputDir } from '../apply-options.js';
import type { CommandContext } from '../context.js';
import { parseStringOption } from '../parse-options.js';
import { todayUtc } from '../prepare-plan.js';
import { renderIssues } from '../render/issues.js';
import { readRunId, readStateDir } from '../run-options.js';

/**
 * `runner report FILE`: the HTML gallery of a run from its state journal, read-only (no lock, no
 * network), like `runner status`. Prompts are rendered with the run's own `{{ date }}`.
 */
export async function runReport(ctx: CommandContext, args: string[], options: Record<string, unknown>) {
  const [manifestFile = ''] = args;
  const runId = readRunId(options);
  const expand = (date: string) => validateManifestOffline(manifestFile, { env: ctx.env, date });
  let offline = await expand(todayUtc());
  const { loaded } = offline;
  if (loaded === undefined) {
    ctx.output.err(renderIssues(offline.issues, manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  const stateDir = resolveStateDir({
    manifestFile,
    pipeline: loaded.manifest.name,
    runId,
    ...readStateDir(options),
  });
  const { jobs: state, warnings, runs } = replayJournal(await readJournalText(stateDir));
  for (const warning of warnings) ctx.output.err(`${ctx.output.style.yellow('warning')} ${warning}`);
  if (runs.length === 0) {
    ctx.output.err(
      `${ctx.output.style.yellow('warning')} No state for run "${runId}" in ${stateDir}: every job shows as pending. Pass --run (and --state-dir) as given to apply.`,
    );
  }
  const runDate = runs[0] === undefined ? todayUtc() : todayUtc(new Date(runs[0].at));
  if (runDate !== todayUtc()) offline = await expand(runDate);

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
    jobs: offline.jobs,
    state,
    now: new Date(),
  });
  await writeWhole(file, renderReportHtml(data, dirname(file)));
  const near = relative(ctx.cwd, file);
  ctx.output.out(`Report: ${near.startsWith('..') || isAbsolute(near) ? file : near}`);
  return ExitCode.Success;
}
