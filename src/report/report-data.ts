import { basename, dirname, join } from 'node:path';
import { isLocalFileRef } from '../catalog/local-files.js';
import { SUPERSEDED_DIR } from '../execute/set-aside-superseded.js';
import { adviseJob, type AdviceCommands } from '../execute/job-advice.js';
import type { JobKind } from '../kinds/types.js';
import type { MatrixValue } from '../manifest/types.js';
import {
  type AttemptState,
  type JobState,
  type JobStatus,
  sumBudgetedCredits,
  summarizeJob,
  viewJobState,
} from '../state/index.js';
import { RESULT_RETENTION_MS } from '../service/job-status.js';

/** What the report and the results index need of one job of the manifest (an expanded or planned job). */
export interface ReportJobInput {
  id: string;
  kind: JobKind;
  model: string;
  prompt?: string | undefined;
  params: Record<string, unknown>;
  matrixValues: Readonly<Record<string, MatrixValue>>;
}

export type MediaType = 'image' | 'video' | 'other';

/** One result of a job: a downloaded file, or only its link when nothing was downloaded. */
export interface ReportFile {
  /** 1-based position among the job's results. */
  index: number;
  url: string;
  /** ISO time the result link stops working (completion + 7 days); absent when unknown. */
  urlExpiresAt?: string;
  /** Absolute path of the downloaded file on this machine (absent: not saved here). */
  path?: string;
  /**
   * Why a result the state records as saved is not in this machine's output: expired or unreachable,
   * with where and when it was saved (#30.2).
   */
  missing?: string;
  bytes?: number;
  sha256?: string;
  mediaType: MediaType;
}

/** One job as the gallery report and the results index show it. */
export interface ReportEntry {
  id: string;
  kind: JobKind;
  model: string;
  prompt?: string;
  /** Params as written, local reference files by their manifest path. */
  params: Record<string, unknown>;
  matrix: Record<string, MatrixValue>;
  status: JobStatus;
  attempts: number;
  /** Credits charged and not refunded. */
  credits: number;
  /** The service's job id of the latest attempt. */
  serviceJobId?: string;
  /** The machine that last worked on the job, when several can apply the run (PostgreSQL state). */
  machine?: string;
  failureKind?: string;
  error?: string;
  /** What the user should do about a failure, as `runner status` says it (src/execute/job-advice.ts). */
  advice?: string;
  /** ISO time a deferred job may be tried again (the service's `notBefore`), when known. */
  notBefore?: string;
  /** The attempts before the latest, oldest first, with what each came to (absent for one attempt). */
  earlierAttempts?: EarlierAttempt[];
  /** Seconds from the first intent to the service's completion, for a done job whose times are known. */
  seconds?: number;
  files: ReportFile[];
  /** The latest attempt's number and payload hash: what a review decision is made on (#19.3). */
  attempt?: number;
  payloadHash?: string;
  /** Earlier attempts whose results a later attempt replaced (`--replace`, `--replace-from`), oldest first. */
  replaced?: ReplacedAttempt[];
}

/** An earlier attempt's results, kept (in `.superseded/attempt-N/`) after a later attempt replaced them. */
export interface ReplacedAttempt {
  attempt: number;
  /** The attempt sent in its place. */
  replacedBy: number;
  /** Whether a reviewer rejected it (`apply --replace-from`), and their note. */
  rejected: boolean;
  note?: string;
  files: ReportFile[];
}

/** An attempt of a job before its latest: how it ended and why. */
export interface EarlierAttempt {
  attempt: number;
  /** The attempt's outcome as the journal gives it (`failed`, `retry`, `create-refused`, `done`...). */
  outcome: string;
  failureKind?: string;
  error?: string;
}

/** Jobs in manifest order, with their count: an array, or a view that makes each job when it is read. */
export interface ReportJobList extends Iterable<ReportJobInput> {
  readonly length: number;
}

/**
 * Entries in manifest order, with their count. {@link buildReportData} makes them anew on each
 * iteration, so writing the report, the results index and JUnit of a 100,000-job run holds one entry
 * at a time (all of them at once were ~150 MB at the end of a resumed apply).
 */
export interface ReportEntryList extends Iterable<ReportEntry> {
  readonly length: number;
  /**
   * Each entry's {@link ReportStatus}, in order, without making the entries (a finished job of the
   * state snapshot is not read): what a file that starts with totals (JUnit) needs before its entries.
   * Absent on a plain list.
   */
  statuses?(): Iterable<ReportStatus>;
}

/**
 * A job's status as the run's summaries count it: the journal's, with `downloading` for a done job
 * some of whose results are not on disk (paid, but a full disk, a refused answer or an interrupt kept
 * them out), as `runner status` shows it.
 */
export type ReportStatus = JobStatus | 'downloading';

/** The {@link ReportStatus} of an entry. */
export function reportStatusOf(entry: ReportEntry): ReportStatus {
  return entry.status === 'done' && entry.files.some((file) => file.path === undefined)
    ? 'downloading'
    : entry.status;
}

/** The entries' statuses, in order: from {@link ReportEntryList.statuses} when the list has it. */
export function statusesOf(entries: ReportEntryList): Iterable<ReportStatus> {
  return entries.statuses?.() ?? [...entries].map(reportStatusOf);
}

/** A run's jobs with their state: the data of the HTML report, the results index and JUnit. */
export interface ReportData {
  pipeline: string;
  runId: string;
  manifestFile: string;
  /** ISO time the report was made. */
  generatedAt: string;
  /** Matrix axis names in the order they first appear. */
  axes: string[];
  /** The grid PNGs made of the run's results (`writeGridImages`), for the page to link. */
  gridImages?: GridImage[];
  /** The run's own commands, for the page to say what to run next (#33.3, #33.4); absent: it names flags. */
  commands?: ReportCommands;
  entries: ReportEntryList;
}

/**
 * Commands with the flags that locate this run (`rerunCommand`: run, state, output, vars), shell-quoted:
 * what the page tells a reviewer to run. `plan` and `apply` have no targeting (`--replace-from`, which
 * the page appends with the decisions file, picks the jobs itself and refuses `--only`/`--exclude`).
 */
export interface ReportCommands {
  plan: string;
  apply: string;
  /** apply `--download-only`: fetches results that are not on this machine, creating nothing. */
  downloadOnly: string;
}

/** A PNG of the grid of every result: rows × columns, one grid per value of `split` when set. */
export interface GridImage {
  rows: string;
  cols: string;
  split?: string;
  /** Absolute path of the PNG. */
  file: string;
}

/**
 * Joins the manifest's jobs (in manifest order) with their replayed state. Jobs of the state that the
 * manifest no longer has are left out: the report shows what this manifest asks for. Linear in jobs;
 * the entries are made when they are read (see {@link ReportEntryList}), from `jobs` and `state` as
 * they are then.
 */
export function buildReportData(input: {
  pipeline: string;
  runId: string;
  manifestFile: string;
  jobs: ReportJobList;
  state: ReadonlyMap<string, JobState>;
  now: Date;
  /** Which machine did each job (`RunStateReading`'s `replay.machines`), when known. */
  machines?: ReadonlyMap<string, string>;
  /** Where the recorded results are on this machine. @default the recorded files as paths */
  here?: ResultsHere;
  /** The commands the advice names, with the run's flags; without them it names the flags. */
  commands?: AdviceCommands;
  /** The commands the page names (the review's next step, fetching what is not here). */
  runCommands?: ReportCommands;
}): ReportData {
  const axes = new Set<string>();
  for (const job of input.jobs) for (const axis of Object.keys(job.matrixValues)) axes.add(axis);
  const { jobs, state, machines } = input;
  const here = input.here ?? RECORDED_PATHS;
  const entries: ReportEntryList = {
    get length() {
      return jobs.length;
    },
    *[Symbol.iterator]() {
      for (const job of jobs) {
        const known = state.get(job.id);
        const entry = buildEntry(
          job,
          known === undefined ? undefined : viewJobState(known),
          here,
          input.commands,
        );
        const machine = machines?.get(job.id);
        if (machine !== undefined) entry.machine = machine;
        yield entry;
      }
    },
    *statuses() {
      for (const job of jobs) {
        const known = state.get(job.id);
        if (known === undefined) yield 'pending';
        // A stored summary says whether every result was saved; only a job that says no is read.
        else if (known.status === 'done' && (!summarizeJob(known).complete || here.missing.has(job.id)))
          yield reportStatusOf(buildEntry(job, viewJobState(known), here, input.commands));
        else yield known.status;
      }
    },
  };
  return {
    pipeline: input.pipeline,
    runId: input.runId,
    manifestFile: input.manifestFile,
    generatedAt: input.now.toISOString(),
    axes: [...axes],
    ...(input.runCommands === undefined ? {} : { commands: input.runCommands }),
    entries,
  };
}

/**
 * The run's recorded results as this machine has them (#30.1, #30.2): each recorded file's path here
 * (the journal records keys relative to the output root), and the results missing here by job.
 */
export interface ResultsHere {
  /** The absolute path on this machine of a file as the journal recorded it; undefined: none here. */
  pathOf(recordedFile: string): string | undefined;
  /** Job id → recorded file → why it is not here (expired or unreachable, where and when it was saved). */
  missing: ReadonlyMap<string, ReadonlyMap<string, string>>;
}

/** The recorded files taken as paths as they are (absolute paths of earlier releases). */
const RECORDED_PATHS: ResultsHere = { pathOf: (file) => file, missing: new Map() };

function buildEntry(
  job: ReportJobInput,
  state: JobState | undefined,
  here: ResultsHere,
  commands: AdviceCommands | undefined,
): ReportEntry {
  const entry: ReportEntry = {
    id: job.id,
    kind: job.kind,
    model: job.model,
    params: displayParams(job.params),
    matrix: { ...job.matrixValues },
    status: state?.status ?? 'pending',
    attempts: state?.attempts.length ?? 0,
    credits: state === undefined ? 0 : sumBudgetedCredits(state),
    files: [],
  };
  if (job.prompt !== undefined) entry.prompt = job.prompt;
  const last = state?.attempts.at(-1);
  if (state === undefined || last === undefined) return entry;
  if (last.jobId !== undefined) entry.serviceJobId = last.jobId;
  if (last.failureKind !== undefined) entry.failureKind = last.failureKind;
  const error = last.error ?? last.uncertainReason;
  if (error !== undefined) entry.error = error;
  if (state.status === 'deferred' && last.notBefore !== undefined)
    entry.notBefore = new Date(last.notBefore).toISOString();
  // The advice `runner status` gives too (#33.11).
  const advice = adviseJob(entry, commands);
  if (advice !== undefined) entry.advice = advice;
  if (state.attempts.length > 1) entry.earlierAttempts = state.attempts.slice(0, -1).map(earlierAttempt);
  if (last.outcome === 'done')
    entry.files = listFiles(job.kind, state, last.resultUrls, last.completedAt, here);
  entry.attempt = last.attempt;
  entry.payloadHash = last.payloadHash;
  const replaced = listReplaced(job.kind, state, here);
  if (replaced.length > 0) entry.replaced = replaced;
  const first = state.attempts[0];
  if (last.outcome === 'done' && last.completedAt !== undefined && first !== undefined)
    entry.seconds = Math.max(0, last.completedAt - first.intentAt) / 1000;
  return entry;
}

function earlierAttempt(attempt: AttemptState): EarlierAttempt {
  const earlier: EarlierAttempt = { attempt: attempt.attempt, outcome: attempt.outcome };
  if (attempt.failureKind !== undefined) earlier.failureKind = attempt.failureKind;
  const error = attempt.error ?? attempt.uncertainReason;
  if (error !== undefined) earlier.error = error;
  return earlier;
}

function listFiles(
  kind: JobKind,
  state: JobState,
  urls: readonly string[],
  completedAt: number | undefined,
  here: ResultsHere,
): ReportFile[] {
  const missing = here.missing.get(state.id);
  return urls.map((url, position) => {
    const file: ReportFile = { index: position + 1, url, mediaType: mediaTypeOf(kind, url) };
    if (completedAt !== undefined)
      file.urlExpiresAt = new Date(completedAt + RESULT_RETENTION_MS).toISOString();
    const download = state.downloads.find((candidate) => candidate.url === url);
    const note = download === undefined ? undefined : missing?.get(download.file);
    const path = download === undefined || note !== undefined ? undefined : here.pathOf(download.file);
    if (note !== undefined) file.missing = note;
    if (download !== undefined && path !== undefined) {
      file.path = path;
      file.bytes = download.bytes;
      file.sha256 = download.sha256;
      file.mediaType = mediaTypeOf(kind, download.file);
    }
    return file;
  });
}

/**
 * The files of replaced attempts, by attempt. They sit where they were downloaded until the new attempt
 * downloads its own, then in `.superseded/attempt-N/` beside them (src/execute/set-aside-superseded.ts).
 */
function listReplaced(kind: JobKind, state: JobState, here: ResultsHere): ReplacedAttempt[] {
  const superseded = state.superseded ?? [];
  if (superseded.length === 0) return [];
  const movedAside = state.downloads.length > 0;
  const byAttempt = new Map<number, ReplacedAttempt>();
  for (const old of superseded) {
    let replaced = byAttempt.get(old.attempt);
    if (replaced === undefined) {
      const review = state.attempts.find((attempt) => attempt.rejectedAttempt === old.attempt);
      const next = state.attempts.find((attempt) => attempt.attempt > old.attempt);
      replaced = {
        attempt: old.attempt,
        replacedBy: review?.attempt ?? next?.attempt ?? old.attempt + 1,
        rejected: review !== undefined,
        files: [],
      };
      if (review?.rejectionNote !== undefined) replaced.note = review.rejectionNote;
      byAttempt.set(old.attempt, replaced);
    }
    const recorded = movedAside
      ? join(dirname(old.file), SUPERSEDED_DIR, `attempt-${old.attempt}`, basename(old.file))
      : old.file;
    const path = here.pathOf(recorded);
    replaced.files.push({
      index: replaced.files.length + 1,
      url: old.url,
      ...(path === undefined ? {} : { path }),
      bytes: old.bytes,
      sha256: old.sha256,
      mediaType: mediaTypeOf(kind, old.file),
    });
  }
  return [...byAttempt.values()].sort((a, b) => a.attempt - b.attempt);
}

const IMAGE_EXTENSIONS = /\.(png|jpe?g|webp|gif|avif|bmp|svg)$/i;
const VIDEO_EXTENSIONS = /\.(mp4|webm|mov|m4v|ogv)$/i;

/** By the file's extension, else by the job's kind (image jobs make images, every other kind a video). */
export function mediaTypeOf(kind: JobKind, fileOrUrl: string): MediaType {
  const path = fileOrUrl.split(/[?#]/, 1)[0] ?? '';
  if (IMAGE_EXTENSIONS.test(path)) return 'image';
  if (VIDEO_EXTENSIONS.test(path)) return 'video';
  return kind === 'image' ? 'image' : 'video';
}

/** Params for display: local reference files by the path written in the manifest, the rest as is. */
function displayParams(params: Record<string, unknown>): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    shown[name] = Array.isArray(value) ? value.map(displayValue) : displayValue(value);
  }
  return shown;
}

function displayValue(value: unknown): unknown {
  return isLocalFileRef(value) ? value.localFile : value;
}
