import { openResultsStore } from '../results/open-results-store.js';
import { createResultFiles } from '../results/result-files.js';
import { buildStatusView, judgeRun, type RunVerdict } from '../state/index.js';
import { resolveOutputDir } from './apply-options.js';
import { isS3Output } from './output-location.js';
import { findResultsHere } from './results-here.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import { readRunForReading, type ReadRunOptions } from './read-only-run.js';
import type { StatusCommandView } from './views.js';
import { rerunCommand } from './rerun-command.js';

/** status's outcome of each verdict: the exit codes apply gives the same run (src/cli/exit-codes.ts). */
const VERDICT_OUTCOMES: Record<RunVerdict, Outcome> = {
  finished: 'done',
  'results-unsaved': 'results-unsaved',
  unfinished: 'jobs-unfinished',
};

/** What `runner status` is asked: the run and its jobs, and how to print them. */
export interface StatusOptions extends ReadRunOptions {
  /** `--json`: the view as JSON instead of the table. */
  json: boolean;
}

/**
 * `runner status FILE`: every job of a run from its state journal, read-only (no lock, no network).
 * Jobs of the manifest that never ran show as pending. A run without state is an error (exit 1)
 * naming the runs that do exist, never a table of pending jobs. The exit code is apply's for the same
 * run (src/state/run-verdict.ts): `jobs-unfinished` (exit 1) when a job failed or is not done,
 * `results-unsaved` (exit 1) when a done job's results are not all downloaded (status `downloading`) or
 * not in this machine's folder, so a script can tell a run whose results are all saved.
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
  // The run's output folder as THIS machine resolves it (#30.1), where its files and report are here;
  // each recorded result is looked up there (#30.2).
  const outputDir = resolveOutputDir(ctx, undefined, {
    manifestDir: run.loaded.dir,
    manifestOutput: run.loaded.manifest.output,
    pipeline: run.loaded.manifest.name,
    runId: run.runId,
    recordedOutputDir: run.recordedOutputDir,
    recordedHere: run.recordedHere,
  });
  // A bucket output (#30.3) is looked up there: the same objects from every machine.
  const store = await openResultsStore(outputDir, ctx.cwd);
  const results = createResultFiles(store, run.recordedOutputDir);
  const { here, missingCount } = await findResultsHere(results, run.state, Date.now()).finally(() =>
    (store as { close?(): void }).close?.(),
  );
  for (const job of view.jobs) {
    const notes = here.missing.get(job.id);
    job.files = job.files.map((file) => {
      const note = notes?.get(file.file);
      return {
        ...file,
        file: here.pathOf(file.file) ?? file.file,
        ...(note === undefined ? {} : { missing: note }),
      };
    });
  }
  const downloadOnly = rerunCommand('apply', manifestFile, options.repeat, ctx.global, ['--download-only']);
  ctx.output.out(
    options.json
      ? JSON.stringify(
          run.recordedOutputDir === undefined ? view : { ...view, outputDir, missingHere: missingCount },
          null,
          2,
        )
      : renderStatus(view, ctx.output.style, ctx.output.width, {
          resend: rerunCommand('apply', manifestFile, options.repeat, ctx.global, ['--resend-uncertain']),
          retryFailed: rerunCommand('apply', manifestFile, options.repeat, ctx.global, ['--retry-failed']),
          downloadOnly,
          resume: rerunCommand('apply', manifestFile, options.repeat, ctx.global),
        }) +
          (run.recordedOutputDir === undefined
            ? ''
            : `\n${isS3Output(outputDir) ? 'Output' : 'Output folder'}: ${outputDir}`) +
          (missingCount === 0
            ? ''
            : `\n${missingCount} result(s) recorded as saved are not in ${isS3Output(outputDir) ? 'this bucket' : 'this folder'} (saved on another machine, moved or expired): ${downloadOnly} fetches them while their links live.`),
  );
  // The verdict apply gives (#33.11): a failed, deferred, uncertain or unsent job is an unfinished run
  // (exit 1, as apply's); results owed by done jobs, or not here, are not saved yet (#20.8, #30.2).
  const missingJobs = view.jobs.filter((job) => job.status === 'done' && here.missing.has(job.id)).length;
  const verdict = judgeRun({
    jobs: view.totals.jobs,
    done: view.totals.done - missingJobs,
    downloading: view.totals.downloading + missingJobs,
  });
  return VERDICT_OUTCOMES[verdict];
}
