import { ExitCode } from '../errors.js';
import { buildStatusView } from '../state/status-view.js';
import type { CommandContext } from './context.js';
import { readRunForReading } from './read-only-run.js';
import type { StatusCommandView } from './views.js';
import { rerunCommand } from './rerun-command.js';

/**
 * `runner status FILE`: every job of a run from its state journal, read-only (no lock, no network).
 * Jobs of the manifest that never ran show as pending. A run without state is an error (exit 1)
 * naming the runs that do exist, never a table of pending jobs. Exits 1 when a done job's results are
 * not all downloaded (status `downloading`), so a script can tell a run whose results are all saved.
 */
export async function runStatus(
  ctx: CommandContext,
  args: string[],
  options: Record<string, unknown>,
  show: StatusCommandView,
): Promise<number> {
  const { renderIssues, renderStatus } = show;
  const [manifestFile = ''] = args;
  const run = await readRunForReading(ctx, manifestFile, options);
  if ('issues' in run) {
    ctx.output.err(renderIssues(run.issues, manifestFile, ctx.output.style));
    return ExitCode.InvalidInput;
  }
  const view = buildStatusView(
    run.state,
    run.jobs.map((job) => job.id),
    run.machines,
  );
  // The run's own output folder (as it recorded it), where its files and report are.
  const outputDir = run.recordedOutputDir;
  ctx.output.out(
    options.json === true
      ? JSON.stringify(outputDir === undefined ? view : { ...view, outputDir }, null, 2)
      : renderStatus(view, ctx.output.style, ctx.output.width, {
          resend: rerunCommand('apply', manifestFile, options, ctx.global, ['--resend-uncertain']),
          downloadOnly: rerunCommand('apply', manifestFile, options, ctx.global, ['--download-only']),
        }) + (outputDir === undefined ? '' : `\nOutput folder: ${outputDir}`),
  );
  // Results owed by done jobs are not saved yet: not a finished run, for scripts too (#20.8).
  return view.totals.downloading > 0 ? ExitCode.Failure : ExitCode.Success;
}
