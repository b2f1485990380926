import { appendFile } from 'node:fs/promises';
import { PRIVATE_FILE_MODE } from '../file-modes.js';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { ExecutionSummary } from '../execute/events.js';
import type { LoadedManifest, Manifest } from '../manifest/types.js';
import { resolveOutputDir } from './apply-options.js';
import type { Plan, PlannedJob } from '../plan/types.js';
import { renderApplyMarkdown } from '../report/render-apply-markdown.js';
import { buildReportData, type ReportJobList } from '../report/report-data.js';
import { writeReportFiles, type ReportFiles } from '../report/write-report-files.js';
import type { JobState } from '../state/job-state.js';
import type { CommandContext } from './context.js';
import { parseStringOption } from './parse-options.js';

/**
 * Where apply's HTML report goes: `--no-report` or manifest `report: false` turn it off; `--report FILE`
 * (relative to the working folder) or manifest `report: PATH` (relative to the manifest) move it; by
 * default `report.html` in the download folder.
 */
export function resolveReportFile(
  ctx: Pick<CommandContext, 'cwd'>,
  options: Record<string, unknown>,
  manifest: Pick<Manifest, 'report'>,
  where: { manifestDir: string; resultsDir: string },
): string | undefined {
  if (options.report === false) return undefined;
  const flag = parseStringOption(options.report);
  if (flag !== undefined && options.report !== true) return resolve(ctx.cwd, flag);
  if (manifest.report === false) return undefined;
  if (typeof manifest.report === 'string') {
    return isAbsolute(manifest.report) ? manifest.report : join(where.manifestDir, manifest.report);
  }
  return join(where.resultsDir, 'report.html');
}

/**
 * The end of an apply: results index, HTML report, `--junit` XML and the GitHub step summary, all from
 * the run's state after the executor stopped. Returns the files written.
 */
export async function writeApplyOutputs(
  ctx: Pick<CommandContext, 'cwd' | 'env'> & Partial<Pick<CommandContext, 'global'>>,
  options: Record<string, unknown>,
  run: {
    plan: Plan;
    loaded: Pick<LoadedManifest, 'manifest' | 'dir'>;
    runId: string;
    /** The run's state as the executor ended it (equal to a replay of its journal). */
    state: ReadonlyMap<string, JobState>;
    summary: ExecutionSummary;
    startedAt: number;
  },
): Promise<ReportFiles> {
  const data = buildReportData({
    pipeline: run.plan.pipeline,
    runId: run.runId,
    manifestFile: run.plan.manifestFile,
    jobs: reportJobsOf(run.plan.jobs),
    state: run.state,
    now: new Date(),
  });
  const { manifest, dir: manifestDir } = run.loaded;
  const resultsDir = resolveOutputDir(ctx, options, {
    manifestDir,
    manifestOutput: manifest.output,
    pipeline: run.plan.pipeline,
  });
  const junit = parseStringOption(options.junit);
  const files = await writeReportFiles(
    data,
    {
      resultsDir,
      reportFile: resolveReportFile(ctx, options, manifest, { manifestDir, resultsDir }),
      junitFile: junit === undefined ? undefined : resolve(ctx.cwd, junit),
    },
    (Date.now() - run.startedAt) / 1000,
  );
  // GitHub Actions shows this file on the run's summary page (like `runner plan`).
  const summaryFile = ctx.env.GITHUB_STEP_SUMMARY;
  if (summaryFile !== undefined && summaryFile !== '') {
    await appendFile(
      summaryFile,
      renderApplyMarkdown(run.summary, data, {
        ...(files.report === undefined ? {} : { report: files.report }),
        results: files.resultsJson,
      }),
      // Private when the runner creates it (an existing file keeps its mode).
      { mode: PRIVATE_FILE_MODE },
    );
  }
  return files;
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
 * {@link writeApplyOutputs}, rendered for the terminal: the paths written, or a warning when they could
 * not be written (the jobs ran all the same: a report problem does not change apply's exit code).
 */
export async function reportApplyOutputs(
  ctx: Parameters<typeof writeApplyOutputs>[0],
  options: Record<string, unknown>,
  run: Parameters<typeof writeApplyOutputs>[2],
): Promise<string> {
  try {
    const files = await writeApplyOutputs(ctx, options, run);
    const show = (file: string) => {
      const near = relative(ctx.cwd, file);
      return near.startsWith('..') || isAbsolute(near) ? file : near;
    };
    // The report comes last: the line a person looks for at the end of a run.
    return [
      `Results index: ${show(files.resultsJson)} (and results.csv)`,
      ...(files.junit === undefined ? [] : [`JUnit: ${show(files.junit)}`]),
      ...(files.report === undefined ? [] : [`Report: ${show(files.report)}`]),
    ].join('\n');
  } catch (error) {
    return `warning: the report and results index could not be written: ${error instanceof Error ? error.message : String(error)}`;
  }
}
