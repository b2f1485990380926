import { existsSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { listJournalOwners } from './journal-identity.js';
import { sumBudgetedCredits, type JobStatus } from './job-state.js';
import type { ReplayResult } from './replay.js';
import { recordedOutputDir } from './run-output-dir.js';
import { findUnfinishedWork, type UnfinishedWork } from './unfinished-work.js';

/** One run of a pipeline as `runner runs` shows it. */
export interface RunSummary {
  runId: string;
  /** ISO time of the first apply of the run (its header, else its first `run` record). */
  startedAt?: string;
  /** ISO time of the latest apply. */
  lastAppliedAt?: string;
  /** How many times `apply` ran on this state. */
  applies: number;
  /**
   * The run's jobs by status: `jobs` is the size of the latest apply's plan (else `plannedJobs` of the
   * caller, the manifest's jobs today) when that is more than the journal knows, and the jobs never
   * started are counted `pending`.
   */
  counts: Record<JobStatus, number> & { jobs: number };
  creditsSpent: number;
  dir: string;
  /** The output folder the run recorded (absent for runs of earlier releases). */
  outputDir?: string;
  /**
   * The folder holding the run's files: `outputDir`, or for a run of an earlier release the folder of a
   * file it downloaded (only with `listRuns`'s `findFiles`; not in `runs --json`).
   */
  filesDir?: string;
  /** Paid work left unfinished: open jobs, results not saved (src/state/unfinished-work.ts). */
  unfinished: UnfinishedWork;
  /** Set when reading the journal warned (torn line, unknown records) or failed. */
  warnings: string[];
  /**
   * Whether a file the run downloaded into `ListRunsInput.filesIn` is still there (only when asked;
   * not in `runs --json`): apply's output folder guard.
   */
  keepsFilesIn?: boolean;
}

/**
 * The JSON of `runner runs --json` (version 1):
 * `{ schemaVersion: 1, pipeline, stateRoot, runs: [{ runId, startedAt?, lastAppliedAt?, applies,
 *    counts: { jobs, pending, creating, open, done, failed, deferred, uncertain }, creditsSpent, dir,
 *    outputDir?, unfinished: { open, undownloaded, ids }, warnings }] }`, runs oldest first.
 */
export interface RunsView {
  schemaVersion: 1;
  pipeline: string;
  stateRoot: string;
  runs: RunSummary[];
}

/** Which runs `listRuns` lists, and what it finds out about them. */
export interface ListRunsInput {
  manifestFile: string;
  pipeline: string;
  stateDir?: string;
  /** The run size to show for a run whose journal does not record it (the manifest's jobs today). */
  plannedJobs?: number;
  /** A run not to read (the caller's own run, already in hand): its id. */
  except?: string;
  /** Also find where runs of earlier releases put their files ({@link RunSummary.filesDir}). */
  findFiles?: boolean;
  /** Also say whether each run still keeps a file it downloaded in this folder ({@link RunSummary.keepsFilesIn}). */
  filesIn?: string;
}

/**
 * A run's line in `runner runs`, from its replayed state (`dir`: where it lives); none when the state
 * belongs to other pipelines only.
 */
export function summarizeReplay(
  replay: ReplayResult,
  dir: string,
  pipeline: string,
  options: Pick<ListRunsInput, 'plannedJobs' | 'findFiles' | 'filesIn'> = {},
): RunSummary[] {
  const { plannedJobs, findFiles = false, filesIn } = options;
  const owners = listJournalOwners(replay).filter((owner) => owner.pipeline === pipeline);
  // Folder names are reduced to safe characters: the journal's own identity names the run.
  if (owners.length === 0 && listJournalOwners(replay).length > 0) return [];
  const runId = owners.map((owner) => owner.runId).join(' + ') || (dir.split(/[\\/]/).at(-1) ?? dir);
  const summary = emptySummary(dir, runId);
  summary.warnings = replay.warnings;
  const started = replay.header?.at ?? replay.runs[0]?.at;
  if (started !== undefined) summary.startedAt = new Date(started).toISOString();
  const last = replay.runs.at(-1);
  if (last !== undefined) summary.lastAppliedAt = new Date(last.at).toISOString();
  summary.applies = replay.runs.length;
  for (const job of replay.jobs.values()) {
    summary.counts.jobs++;
    summary.counts[job.status]++;
    // As apply counts it (its summary, its cap), so `runs` and `status` agree with it (#32.1).
    summary.creditsSpent += sumBudgetedCredits(job);
  }
  // The journal knows only the jobs an apply started: a run killed after 4 creates of 8 has 8 jobs.
  const planned = last?.plannedJobs ?? plannedJobs;
  if (typeof planned === 'number' && planned > summary.counts.jobs) {
    summary.counts.pending += planned - summary.counts.jobs;
    summary.counts.jobs = planned;
  }
  const outputDir = recordedOutputDir(replay.runs);
  if (outputDir !== undefined) summary.outputDir = outputDir;
  const filesDir = findFiles ? recordedOutputDir(replay.runs, replay.jobs) : undefined;
  if (filesDir !== undefined) summary.filesDir = filesDir;
  summary.unfinished = findUnfinishedWork(replay.jobs, last?.download !== false);
  if (filesIn !== undefined) summary.keepsFilesIn = keepsFileIn(replay.jobs, filesIn, outputDir);
  return [summary];
}

/** Whether a file one of `jobs` downloaded into `dir` is still there. */
/**
 * Whether a file the run recorded is still in `dir`. Files are recorded as keys relative to the run's
 * output folder (#30.1), or as absolute paths by earlier releases.
 */
function keepsFileIn(jobs: ReplayResult['jobs'], dir: string, outputDir: string | undefined): boolean {
  for (const job of jobs.values()) {
    const files = job.storedSummary?.()?.files ?? job.downloads.map((download) => download.file);
    for (const file of files) {
      const path = isAbsolute(file) ? file : outputDir === undefined ? undefined : join(outputDir, file);
      if (path !== undefined && path.startsWith(dir + sep) && existsSync(path)) return true;
    }
  }
  return false;
}

export function emptySummary(dir: string, runId: string): RunSummary {
  return {
    runId,
    applies: 0,
    counts: { jobs: 0, pending: 0, creating: 0, open: 0, done: 0, failed: 0, deferred: 0, uncertain: 0 },
    creditsSpent: 0,
    dir,
    unfinished: { open: 0, undownloaded: 0, ids: [] },
    warnings: [],
  };
}
