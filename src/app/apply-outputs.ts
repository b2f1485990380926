import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { PRIVATE_FILE_MODE } from '../file-modes.js';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { ExecutionSummary } from '../execute/events.js';
import type { AdviceCommands } from '../execute/job-advice.js';
import type { LoadedManifest } from '../manifest/types.js';
import { resolveReportFile, type ApplyOptions } from './apply-options.js';
import type { Plan } from '../plan/types.js';
import type { PlannedJob } from '../manifest/planned-job.js';
import { renderApplyMarkdown } from '../report/render-apply-markdown.js';
import {
  buildReportData,
  type ReportCommands,
  type ReportData,
  type ReportJobList,
  type ResultsHere,
} from '../report/report-data.js';
import { mayMakeGridImages } from '../report/grid-image.js';
import { stageStoreThumbnails } from '../report/store-thumbnails.js';
import { THUMBNAIL_FOLDER, type ThumbnailLookup } from '../report/thumbnails.js';
import { createFolderResultsStore } from '../results/backends/folder/folder-results-store.js';
import { createResultFiles } from '../results/result-files.js';
import { formatBytes } from '../service/http.js';
import { writeFolderPage } from './folder-page.js';
import { putCopy, putStagedFiles } from './put-staged-files.js';
import type { ResultsStore } from '../results/results-store.js';
import { type JobState, viewJobState } from '../state/index.js';
import { writeReportFiles, type ReportFiles } from '../report/write-report-files.js';
import type { CommandContext } from './context.js';
import { describeSystemError } from './system-errors.js';
import { describeOutput, isS3Output } from './output-location.js';

/** The files an apply wrote, and the results it copied beside a page of this machine (a bucket's). */
export interface ApplyFiles extends ReportFiles {
  copiedHere?: { copied: number; bytes: number; into: string };
  /** A bucket output's own page and JUnit XML, when `report`/`junit` name files of this machine. */
  inBucket?: { report?: string; junit?: string };
}

/**
 * The end of an apply: results index, HTML report, `--junit` XML and the GitHub step summary, all from
 * the run's state after the executor stopped. Returns the files written.
 */
export async function writeApplyOutputs(
  ctx: Pick<CommandContext, 'cwd' | 'env'> & Partial<Pick<CommandContext, 'global'>>,
  options: Pick<ApplyOptions, 'junit' | 'report'>,
  run: {
    plan: Plan;
    loaded: Pick<LoadedManifest, 'manifest' | 'dir'>;
    runId: string;
    /** The run's state as the executor ended it (equal to a replay of its journal). */
    state: ReadonlyMap<string, JobState>;
    summary: ExecutionSummary;
    startedAt: number;
    /** The run's output folder (as the executor used and journaled it). */
    outputDir: string;
    /** The output folder the run's state recorded before (earlier releases' absolute paths under it). */
    recordedOutputDir?: string | undefined;
    /** The jobs to report when not the plan's (`--replace-from` plans the rejected jobs, reports the run). */
    reportJobs?: ReportJobList;
    /** The commands the advice on failed and uncertain jobs names, with the run's flags (#33.11). */
    adviceCommands?: AdviceCommands;
    /** The commands the report page names, with the run's flags. */
    runCommands?: ReportCommands;
    /** A bucket output's store: the files are written in a temporary folder, then put there (#30.3). */
    bucket?: ResultsStore;
  },
): Promise<ApplyFiles> {
  const { bucket } = run;
  const { files, data } =
    bucket === undefined
      ? await writeApplyFiles(ctx, options, run)
      : await writeToBucket(ctx, options, run, bucket);
  // GitHub Actions shows this file on the run's summary page (like `runner plan`).
  const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
  if (summaryFile !== undefined && summaryFile !== '') {
    try {
      await appendFile(
        summaryFile,
        renderApplyMarkdown(run.summary, data, {
          ...(files.report === undefined ? {} : { report: files.report }),
          results: files.resultsJson,
        }),
        // Private when the runner creates it (an existing file keeps its mode).
        { mode: PRIVATE_FILE_MODE },
      );
    } catch (error) {
      files.failures.push({ file: summaryFile, message: errorText(error) });
    }
  }
  return files;
}

/** {@link writeApplyOutputs} for a bucket output: written in a temporary folder, then put there. */
async function writeToBucket(
  ctx: Parameters<typeof writeApplyOutputs>[0],
  options: Parameters<typeof writeApplyOutputs>[1],
  run: Parameters<typeof writeApplyOutputs>[2],
  bucket: ResultsStore,
): Promise<{ files: ApplyFiles; data: ReportData }> {
  // The page links each result by its path relative to the page: from a folder laid out as the bucket
  // prefix is, that is the result's key, so the prefix can be served as a static site as it is.
  const staging = await mkdtemp(join(tmpdir(), 'runner-bucket-files-'));
  try {
    const reportFile = resolveReportFile(ctx, options, run.loaded.manifest, {
      manifestDir: run.loaded.dir,
      resultsDir: run.outputDir,
    });
    const inBucket = (file: string | undefined) =>
      file !== undefined && file.startsWith(`${run.outputDir}/`)
        ? file.slice(run.outputDir.length + 1)
        : undefined;
    // A page named as a file of this machine (`--report FILE`, the manifest's `report:`) is a review of
    // this machine, as `runner report --out DIR` writes one: the results are copied beside it. The
    // bucket gets its own page all the same (`report.html`), so that the prefix served as a static
    // site always has one: the local copy is added, it does not replace the bucket's (#30).
    const localPage = reportFile !== undefined && inBucket(reportFile) === undefined ? reportFile : undefined;
    const pageKey = localPage === undefined ? inBucket(reportFile) : 'report.html';
    // The page's thumbnails are in the bucket beside the results: those the bucket lacks are made
    // there (one listing, not a HEAD per result); the page links them by key. A thumbnail that cannot
    // be made is not worth failing the run for: the page shows that result itself.
    const thumbnails = async (data: ReportData) =>
      (
        await stageStoreThumbnails(data.entries, bucket, staging, {
          stageAll: mayMakeGridImages(data),
        })
      ).lookup;
    const { files, data } = await writeApplyFiles(
      ctx,
      { ...options, report: pageKey === undefined ? false : join(staging, ...pageKey.split('/')) },
      { ...run, outputDir: staging },
      pageKey === undefined ? undefined : thumbnails,
    );
    const moved: ApplyFiles = await putStagedFiles(bucket, staging, run.outputDir, files);
    // `--junit FILE` is a file of this machine (CI reads it there); the bucket keeps a copy beside
    // the results, as it keeps the page, so the prefix holds the whole run's record.
    if (moved.junit !== undefined && !moved.failures.some((failure) => failure.file === moved.junit)) {
      const junit = await putCopy(bucket, run.outputDir, moved.junit, 'junit.xml', moved);
      if (junit !== undefined) moved.inBucket = { junit };
    }
    if (localPage !== undefined) {
      if (moved.report !== undefined) moved.inBucket = { ...moved.inBucket, report: moved.report };
      await writeLocalPage(run, bucket, localPage, moved);
    }
    return { files: moved, data };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/**
 * The page of a bucket output written as a file of this machine (`--report FILE`), with every result
 * the bucket holds as recorded copied beside it and the thumbnails and grid image made there: the page
 * opened from disk shows every image and link (they pointed into the deleted staging folder, #30).
 * What cannot be copied or written is a failure of the page, as a page that cannot be written.
 */
async function writeLocalPage(
  run: Parameters<typeof writeApplyOutputs>[2],
  bucket: ResultsStore,
  file: string,
  files: ApplyFiles,
): Promise<void> {
  const dir = dirname(file);
  const here = resultsHereAfterApply({ ...run, outputDir: dir, bucket });
  try {
    const written = await writeFolderPage(
      reportDataOf(run, here),
      { file, dir },
      {
        from: createResultFiles(bucket, run.recordedOutputDir),
        state: run.state,
        missing: here.missing,
      },
    );
    files.report = file;
    if (written.copied !== undefined) files.copiedHere = { ...written.copied, into: dir };
    if (written.gridError !== undefined)
      files.failures.push({ file: join(dir, THUMBNAIL_FOLDER), message: written.gridError });
  } catch (error) {
    files.failures.push({ file, message: errorText(error) });
  }
}

/** {@link writeApplyOutputs} into a folder: the run's output folder, or a bucket's staging folder. */
async function writeApplyFiles(
  ctx: Parameters<typeof writeApplyOutputs>[0],
  options: Parameters<typeof writeApplyOutputs>[1],
  run: Parameters<typeof writeApplyOutputs>[2],
  /** The page's thumbnails when not those of the output folder (a bucket's, made beside its results). */
  thumbnailsOf?: (data: ReportData) => Promise<ThumbnailLookup>,
): Promise<{ files: ReportFiles; data: ReportData }> {
  const data = reportDataOf(run, resultsHereAfterApply(run));
  const { manifest, dir: manifestDir } = run.loaded;
  const resultsDir = run.outputDir;
  const { junit } = options;
  const reportFile = resolveReportFile(ctx, options, manifest, { manifestDir, resultsDir });
  const files = await writeReportFiles(
    data,
    {
      resultsDir,
      reportFile,
      junitFile: junit === undefined ? undefined : resolve(ctx.cwd, junit),
      ...(thumbnailsOf === undefined || reportFile === undefined
        ? {}
        : { thumbnails: await thumbnailsOf(data) }),
    },
    (Date.now() - run.startedAt) / 1000,
  );
  return { files, data };
}

/** The report's data of the run as the executor ended it, its results where `here` says. */
function reportDataOf(run: Parameters<typeof writeApplyOutputs>[2], here: ResultsHere): ReportData {
  return buildReportData({
    pipeline: run.plan.pipeline,
    runId: run.runId,
    manifestFile: run.plan.manifestFile,
    jobs: run.reportJobs ?? reportJobsOf(run.plan.jobs),
    state: run.state,
    now: new Date(),
    here,
    ...(run.adviceCommands === undefined ? {} : { commands: run.adviceCommands }),
    ...(run.runCommands === undefined ? {} : { runCommands: run.runCommands }),
  });
}

/**
 * The run's results as this apply left them on this machine: the recorded files as paths in its
 * output folder, and, for a job not all of whose results are saved here (`downloading`), each recorded
 * result the executor could not find or fetch here, with why (#30.2).
 */
function resultsHereAfterApply(run: {
  state: ReadonlyMap<string, JobState>;
  summary: ExecutionSummary;
  outputDir: string;
  recordedOutputDir?: string | undefined;
  /** A bucket output's store (`outputDir` is then the staging folder laid out as its prefix). */
  bucket?: ResultsStore;
}): ResultsHere {
  const files = createResultFiles(createFolderResultsStore(run.outputDir), run.recordedOutputDir);
  const missing = new Map<string, Map<string, string>>();
  for (const job of run.summary.jobs) {
    if (job.outcome !== 'downloading') continue;
    const saved = new Set(job.files);
    const state = run.state.get(job.id);
    if (state === undefined) continue;
    for (const download of viewJobState(state).downloads) {
      // A folder's executor names what it saved by path, a bucket's by key (the recorded name).
      if (saved.has(download.file) || saved.has(files.pathOf(download.file) ?? download.file)) continue;
      let notes = missing.get(job.id);
      if (notes === undefined) missing.set(job.id, (notes = new Map<string, string>()));
      notes.set(
        download.file,
        (job.error ?? `not in ${describeOutput(run.bucket?.location ?? run.outputDir)}`).replace(
          /^result not saved: /,
          '',
        ),
      );
    }
  }
  return { pathOf: (file) => files.pathOf(file), missing };
}

/** The plan's jobs as the report reads them, each made when it is read (no copy of the whole plan). */
function reportJobsOf(jobs: readonly PlannedJob[]): ReportJobList {
  return {
    length: jobs.length,
    *[Symbol.iterator]() {
      for (const job of jobs) {
        const { id, kind, model, prompt, params } = job;
        yield { id, kind, model, prompt, params, matrixValues: job.source.matrixValues };
      }
    },
  };
}

/**
 * {@link writeApplyOutputs}, rendered for the terminal: the paths written, and an error naming each
 * file that could not be written. `failed` is true then: apply exits 1 (unless it already exits with
 * another failure), since a run whose results index or report is missing did not finish its work; the
 * jobs themselves are in the state, and `runner report` writes the report again.
 */
export async function reportApplyOutputs(
  ctx: Parameters<typeof writeApplyOutputs>[0],
  options: Parameters<typeof writeApplyOutputs>[1],
  run: Parameters<typeof writeApplyOutputs>[2],
): Promise<{ note: string; failed: boolean }> {
  const show = (file: string) => {
    if (isS3Output(file)) return file;
    const near = relative(ctx.cwd, file);
    return near.startsWith('..') || isAbsolute(near) ? file : near;
  };
  let files: ApplyFiles;
  try {
    files = await writeApplyOutputs(ctx, options, run);
  } catch (error) {
    return {
      note: `error: the results index and the report could not be written: ${errorText(error)}`,
      failed: true,
    };
  }
  const failed = new Set(files.failures.map((failure) => failure.file));
  const written = (file: string) => !failed.has(file);
  // A bucket's own copy of a file of this machine (not when only the bucket's was written).
  const alsoIn = (copy: string | undefined, file: string) =>
    copy === undefined || copy === file ? '' : ` (and ${copy})`;
  // The report comes last: the line a person looks for at the end of a run.
  const lines = [
    ...(written(files.resultsJson) && written(files.resultsCsv)
      ? [`Results index: ${show(files.resultsJson)} (and results.csv)`]
      : []),
    ...(files.junit === undefined
      ? []
      : [`JUnit: ${show(files.junit)}${alsoIn(files.inBucket?.junit, files.junit)}`]),
    ...(files.copiedHere === undefined
      ? []
      : [
          `Copied ${files.copiedHere.copied} result(s) (${formatBytes(files.copiedHere.bytes)}) from ${show(run.outputDir)} into ${show(files.copiedHere.into)}, beside the page, for an offline review.`,
        ]),
    ...(files.report === undefined
      ? []
      : [`Report: ${show(files.report)}${alsoIn(files.inBucket?.report, files.report)}`]),
    ...files.failures.map((failure) => `error: could not write ${show(failure.file)}: ${failure.message}`),
  ];
  if (files.failures.length > 0) {
    lines.push(
      `The jobs' state is saved; \`runner report\` writes the report again from it once the path is fixed.`,
    );
  }
  return { note: lines.join('\n'), failed: files.failures.length > 0 };
}

function errorText(error: unknown): string {
  const described = describeSystemError(error);
  return described instanceof Error ? described.message : String(described);
}
