import { buildStatusView } from '../state/status-view.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import { readRunForReading, type ReadRunOptions } from './read-only-run.js';
import type { StatusCommandView } from './views.js';
import { rerunCommand } from './rerun-command.js';

/** What `runner status` is asked: the run and its jobs, and how to print them. */
export interface StatusOptions extends ReadRunOptions {
  /** `--json`: the view as JSON instead of the table. */
  json: boolean;
}

/**
 * `runner status FILE`: every job of a run from its state journal, read-only (no lock, no network).
 * Jobs of the manifest that never ran show as pending. A run without state is an error (exit 1)
 * naming the runs that do exist, never a table of pending jobs. `results-unsaved` (exit 1) when a done job's results are
 * not all downloaded (status `downloading`), so a script can tell a run whose results are all saved.
 */
export async function runStatus(
  ctx: CommandContext,
  manifestFile: string,
  options: StatusOptions,
  show: StatusCommandView,
): Promise<Outcome> {
  const { renderIssues, renderStatus } = show;
  const run = await readRunForReading(ctx, manifestFile, options);
  if ('issues' in run) {
    ctx.output.err(renderIssues(run.issues, manifestFile, ctx.output.style));
    return 'invalid-input';
  }
  const view = buildStatusView(
    run.state,
    run.jobs.map((job) => job.id),
    run.machines,
  );
  // The run's own output folder (as it recorded it), where its files and report are.
  const outputDir = run.recordedOutputDir;
  ctx.output.out(
    options.json
      ? JSON.stringify(outputDir === undefined ? view : { ...view, outputDir }, null, 2)
      : renderStatus(view, ctx.output.style, ctx.output.width, {
          resend: rerunCommand('apply', manifestFile, options.repeat, ctx.global, ['--resend-uncertain']),
          downloadOnly: rerunCommand('apply', manifestFile, options.repeat, ctx.global, ['--download-only']),
        }) + (outputDir === undefined ? '' : `\nOutput folder: ${outputDir}`),
  );
  // Results owed by done jobs are not saved yet: not a finished run, for scripts too (#20.8).
  return view.totals.downloading > 0 ? 'results-unsaved' : 'done';
}
