import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { renderReportHtmlPieces } from '../report/render-html.js';
import { mayMakeGridImages, writeGridImages } from '../report/grid-image.js';
import { stageStoreThumbnails } from '../report/store-thumbnails.js';
import { buildReportData } from '../report/report-data.js';
import { writeWholeInPieces } from '../report/write-report-files.js';
import { createFolderResultsStore } from '../results/backends/folder/folder-results-store.js';
import { createResultFiles } from '../results/result-files.js';
import { openResultsStore } from '../results/open-results-store.js';
import type { ResultsStore } from '../results/results-store.js';
import { describeOutput, isS3Output } from './output-location.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { resolveOutputDir } from './apply-options.js';
import { formatBytes } from '../service/http.js';
import { writeFolderPage } from './folder-page.js';
import { namedPage } from './page-file.js';
import { findResultsHere } from './results-here.js';
import { checkReportTarget } from './report-claim.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';
import type { RenderIssues } from './views.js';
import { readRunForReading, type ReadRunOptions } from './read-only-run.js';
import { reportCommands, rerunCommand } from './rerun-command.js';

/** What `runner report` is asked: the run and its jobs, and where the page goes. */
export interface ReportOptions extends ReadRunOptions {
  /** `--output`: the run's output folder on this machine, when not the default one. */
  output?: string;
  /** `--out`: where the page goes (default: report.html in the run's output folder). */
  out?: string;
}

/**
 * `runner report FILE`: the HTML gallery of a run from its state journal, read-only (no lock, no
 * network), like `runner status`: the same run lookup, `--only` / `--exclude`, and a run without
 * state is an error. Prompts are rendered with the run's own `{{ date }}`. Downloaded images without a
 * thumbnail (results of a release before thumbnails) get one in the run's output folder.
 */
export async function runReport(
  ctx: CommandContext,
  manifestFile: string,
  options: ReportOptions,
  view: { issues: RenderIssues },
): Promise<Outcome> {
  const run = await readRunForReading(ctx, manifestFile, options);
  if ('issues' in run) {
    ctx.output.err(view.issues(run.issues, manifestFile, ctx.output.style));
    return 'invalid-input';
  }
  const { loaded } = run;
  // The run's output folder as THIS machine resolves it (#30.1): a recorded folder is a path on the
  // machine that recorded it.
  const recorded = run.recordedOutputDir;
  // The folder the run used on this machine, not today's --output: its report sits beside its results.
  const flag = run.recordedHere ? undefined : options.output;
  if (run.recordedHere && options.output !== undefined && resolve(ctx.cwd, options.output) !== recorded) {
    ctx.output.err(
      `${ctx.output.style.yellow('warning')} run "${run.runId}" wrote its results to ${recorded}: --output ${options.output} is ignored (--out writes the page elsewhere).`,
    );
  }
  const resultsDir = resolveOutputDir(ctx, flag, {
    manifestDir: loaded.dir,
    manifestOutput: loaded.manifest.output,
    pipeline: loaded.manifest.name,
    runId: run.runId,
    recordedOutputDir: recorded,
    recordedHere: run.recordedHere,
  });
  if (recorded !== undefined && recorded !== resultsDir) {
    ctx.output.err(
      `${ctx.output.style.yellow('warning')} run "${run.runId}" recorded ${describeOutput(recorded)}; this machine reads ${describeOutput(resultsDir)}.`,
    );
  }
  // A bucket output (#30.3): its objects are checked there, and the page is written in a temporary
  // folder laid out as the prefix (each result linked by its key), then put beside them.
  const writeReport = async (store: ResultsStore, staging: string | undefined): Promise<Outcome> => {
    const { out } = options;
    const file =
      out === undefined
        ? join(staging ?? resultsDir, 'report.html')
        : resolve(ctx.cwd, namedPage(out, ctx.cwd));
    // `--out` for a bucket: the page goes to a folder of this machine with the results beside it, for
    // a review that works offline; without `--out` it is put in the bucket beside the results.
    const offline = staging !== undefined && out !== undefined;
    const pageDir = offline ? dirname(file) : (staging ?? resultsDir);
    const results = createResultFiles(store, recorded);
    const found = await findResultsHere(results, run.state, Date.now());
    const { missingCount } = found;
    const here =
      staging === undefined
        ? found.here
        : {
            ...found.here,
            pathOf: (recordedFile: string) => join(pageDir, ...results.keyOf(recordedFile).split('/')),
          };
    if (missingCount > 0) {
      ctx.output.err(
        `${ctx.output.style.yellow('warning')} ${missingCount} result(s) the state records as saved are not in ${resultsDir}: the page says why for each; \`runner apply --download-only\` fetches them again while their links live.`,
      );
    }
    const data = buildReportData({
      pipeline: loaded.manifest.name,
      runId: run.runId,
      manifestFile,
      jobs: run.jobs,
      state: run.state,
      now: new Date(),
      here,
      ...(run.machines === undefined ? {} : { machines: run.machines }),
      // The advice `runner status` gives, with the same commands (#33.11).
      commands: {
        resend: rerunCommand('apply', manifestFile, options.repeat, ctx.global, ['--resend-uncertain']),
        retryFailed: rerunCommand('apply', manifestFile, options.repeat, ctx.global, ['--retry-failed']),
      },
      // What the page tells its reviewer to run next, with this run's flags (#33.3).
      runCommands: reportCommands(manifestFile, options.repeat, ctx.global),
    });
    const warnThumbnails = (failed: number, firstError: string | undefined) => {
      if (firstError === undefined) return;
      ctx.output.err(
        `${ctx.output.style.yellow('warning')} ${failed} thumbnail(s) could not be written (${firstError}): the page shows those files full size.`,
      );
    };
    const warnGrid = (message: string) =>
      ctx.output.err(
        `${ctx.output.style.yellow('warning')} the grid image could not be written: ${message}.`,
      );
    if (staging !== undefined && !offline) {
      // Results stored before the runner made thumbnails get theirs now, in the bucket beside the
      // results (listed once; those it holds are not put again).
      const staged = await stageStoreThumbnails(data.entries, store, staging, {
        stageAll: mayMakeGridImages(data),
      });
      warnThumbnails(staged.failed, staged.firstError);
      const gridImages = await writeGridImages(data, staging, staged.lookup).catch((error: unknown) => {
        warnGrid(error instanceof Error ? error.message : String(error));
        return [];
      });
      await writeWholeInPieces(
        file,
        renderReportHtmlPieces({ ...data, gridImages }, dirname(file), staged.lookup),
      );
      for (const image of gridImages) {
        const key = relative(staging, image.file).split(sep).join('/');
        await store.writeWhole(key, await readFile(image.file), 'image/png');
      }
      await store.writeWhole('report.html', await readFile(file), 'text/html; charset=utf-8');
      ctx.output.out(`Report: ${resultsDir}/report.html`);
      return 'done';
    }
    // A folder of this machine: the run's output folder, or for a bucket the page's own folder, into
    // which the results are copied first for a review that works offline.
    const written = await writeFolderPage(
      data,
      { file, dir: pageDir },
      offline ? { from: results, state: run.state, missing: found.here.missing } : undefined,
    );
    if (written.copied !== undefined) {
      ctx.output.err(
        `Copied ${written.copied.copied} result(s) (${formatBytes(written.copied.bytes)}) from ${resultsDir} into ${pageDir} for an offline review.`,
      );
    }
    warnThumbnails(written.thumbnailsFailed, written.firstThumbnailError);
    if (written.gridError !== undefined) warnGrid(written.gridError);
    const near = relative(ctx.cwd, file);
    ctx.output.out(`Report: ${near.startsWith('..') || isAbsolute(near) ? file : near}`);
    return 'done';
  };
  const bucket = isS3Output(resultsDir) ? await openResultsStore(resultsDir, ctx.cwd) : undefined;
  const staging = bucket === undefined ? undefined : await mkdtemp(join(tmpdir(), 'runner-bucket-page-'));
  try {
    // The page goes beside the results (no --out): not into a folder or prefix another run claimed.
    if (options.out === undefined) {
      const address = { manifestFile, pipeline: loaded.manifest.name, runId: run.runId, ...options.state };
      await checkReportTarget(resultsDir, bucket, address);
    }
    return await writeReport(bucket ?? createFolderResultsStore(resultsDir), staging);
  } finally {
    if (staging !== undefined) await rm(staging, { recursive: true, force: true });
    (bucket as { close?(): void } | undefined)?.close?.();
  }
}
