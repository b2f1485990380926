import type { Clock } from '../clock.js';
import type { ResultFiles } from '../results/result-files.js';
import type { JobKind } from '../kinds/types.js';
import type { ServiceClient } from '../service/service-client.js';
import type {
  JobState,
  JournalWriter,
  LateAnswers,
  OtherRunsJobs,
  RunCoordination,
  RunLease,
  StateSnapshots,
  UploadCache,
} from '../state/index.js';
import type { ExecutionEvent } from './events.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './failure-policy.js';
import { MAX_CONCURRENCY } from './concurrency.js';
import { UsageError } from '../errors.js';

/** A result the executor saved: its job, and the file with the SHA-256 of its bytes on disk. */
export interface SavedResult {
  id: string;
  kind: JobKind;
  /** Where it is, as shown: a path on this machine, or `s3://bucket/prefix/key`. */
  file: string;
  /** Its key in the run's results store (relative to the output root). */
  key: string;
  sha256: string;
  /**
   * The stored bytes, kept as they streamed by, for an image result of a store that is not a folder of
   * this machine (a bucket: its thumbnail is made from them instead of reading the object back), up to
   * `KEPT_IMAGE_BYTES` (`./kept-image.ts`); absent otherwise.
   */
  body?: Buffer;
  /**
   * For such an image larger than that: a private file holding the stored bytes (mode 0600, in a
   * private folder of this process), removed once `afterDownload` returns.
   */
  bodyFile?: string;
}

/**
 * The run's state as the store opened it, whole: `StateStore.openRun`'s `RunState` is one (apply
 * passes it as it is), and tests build one from the parts they have (`test/run-state.ts`). What it
 * holds decides how the jobs are scheduled (`schedulerFor`): with a `coordination`, this process runs
 * its share of a run several processes apply; without one, every job, under its own limit.
 */
export interface ExecuteRun {
  /** Appends records durably and in order (`RunState.journal`). */
  readonly journal: Pick<JournalWriter, 'path' | 'append' | 'appendLate' | 'close'>;
  /**
   * Replayed state (`RunState.jobs`); not mutated: the executor copies a job's state before the
   * first record of this run changes it.
   */
  readonly jobs: ReadonlyMap<string, JobState>;
  /**
   * The run's lock or lease (`RunState.lock`): verified before every create, so a runner whose lock
   * was taken over creates nothing more; `assertHeld`, when there, before every journal write.
   */
  readonly lock?: Pick<RunLease, 'verify' | 'assertHeld'>;
  /** Told of every change to the live state, to write snapshots of it (`RunState.snapshots`). */
  readonly snapshots?: StateSnapshots;
  readonly uploadCache: UploadCache;
  /**
   * With a shared backend (`RunState.coordination`, joined): the run is applied by several processes
   * at once; this one only runs the jobs it claims, and the account's open-job slots are counted
   * across all of them.
   */
  readonly coordination?: RunCoordination;
  /**
   * Where the answers to creates a runner whose lease just ended sent are found (`RunState.lateAnswers`:
   * the folder's, after a takeover). @default from `coordination`, when there is one
   */
  readonly lateAnswers?: LateAnswers;
}

/** Everything with an effect, passed in (tests inject fakes). */
export interface ExecuteDeps {
  client: ServiceClient;
  /** The run's state whole: its journal, replayed jobs, lock, snapshots, upload cache, coordination. */
  run: ExecuteRun;
  clock: Clock;
  /** [0, 1) for poll jitter. @default Math.random */
  random?: () => number;
  /**
   * What the other runs of the pipeline hold (their journals), read when a lost create is looked for:
   * a job another run holds is never adopted (issue #24.8). Absent: only this run's state is known.
   */
  readOtherRuns?: () => Promise<OtherRunsJobs>;
  /**
   * Called after each result is saved and journaled (the report's thumbnails are made here, #19.4).
   * Awaited in the job's download slot; an error is a warning, never a failed download.
   */
  afterDownload?: (saved: SavedResult) => Promise<void>;
  /**
   * Where the run's results live on this machine. @default the folder store of `outputDir`, the
   * journal's files read as keys
   */
  results?: ResultFiles;
  /** This machine's name, journaled with each download (#30.2). */
  machine?: string;
  onEvent(event: ExecutionEvent): void;
  /** Aborted on the first Ctrl-C: stop creating, keep polling open jobs until they finish. */
  signal: AbortSignal;
}

export interface ExecuteOptions {
  /** Part of every idempotency key: the same runId on a re-run finds the jobs it already paid for. */
  runId: string;
  /** Jobs open at once, at most 4 (spec 8). @default 4 */
  concurrency?: number;
  /** Poll interval range with uniform jitter. @default [3000, 5000] */
  pollIntervalMs?: readonly [number, number];
  /** Overrides every kind's first-poll delay (tests use a few ms). */
  firstPollAfterMs?: number;
  /** How long to poll one job in this run before reporting it still running (resumable). @default 900_000 */
  jobDeadlineMs?: number;
  /** Credits this state may spend in all (min of `--max-credits` and the manifest's budget). */
  maxCredits?: number;
  retry?: Partial<RetryPolicy>;
  /** How long an unanswered create may be re-sent with the same key; below the service's ~5 min. @default 270_000 */
  idempotencyWindowMs?: number;
  /**
   * A create whose answer was lost and that can no longer be safely re-sent may have made a paid job.
   * `skip` (default) leaves it uncertain and reports it; `resend` (`--resend-uncertain`) sends it again.
   */
  onUncertain?: 'skip' | 'resend';
  /**
   * How long after another runner's lease ended its unanswered create without a key is waited for
   * before it is called uncertain (see `late-answer.ts`; tests shorten it). @default LATE_ANSWER_WINDOW_MS
   */
  lateAnswerWindowMs?: number;
  /** Re-send jobs that failed permanently. @default false */
  retryFailed?: boolean;
  /** Ids of done (or failed) jobs to run once more as a new attempt (`--replace`). @default [] */
  replace?: readonly string[];
  /**
   * Of the `replace` jobs, those a reviewer rejected (`--replace-from`): the attempt rejected and the
   * note, journaled with the attempt that replaces it (the report shows them). @default none
   */
  rejections?: ReadonlyMap<string, { attempt: number; note?: string }>;
  /** Download results as jobs complete. @default false */
  download?: boolean;
  /** The account this apply pays from (`accountOfKey`), recorded with its `run` record (#31.7). */
  account?: string;
  /** Which repository's pipeline the run is (`projectIdentity`), recorded with its `run` record (#31.13). */
  project?: string;
  /** Where results go on this machine; required with `download`. */
  outputDir?: string;
  /**
   * The output folder the run's state recorded last: an earlier release's absolute journal paths under
   * it are read as keys relative to it. @default none
   */
  recordedOutputDir?: string;
  /** This machine (`hostOf`), journaled with the output folder it resolved (#30.1). @default none */
  host?: string;
  /**
   * Create, re-send and poll nothing: only download the results of done jobs that are not saved yet
   * (`apply --download-only`). Needs `download`. @default false
   */
  downloadOnly?: boolean;
  /**
   * How many jobs the run has, `--only` / `--exclude` aside (journaled in the run record, so that
   * `runner runs` shows a crashed run's size). @default the plan's jobs
   */
  runJobs?: number;
}

export interface ResolvedOptions {
  runId: string;
  concurrency: number;
  pollIntervalMs: readonly [number, number];
  firstPollAfterMs: number | undefined;
  jobDeadlineMs: number;
  maxCredits: number | undefined;
  retry: RetryPolicy;
  idempotencyWindowMs: number;
  onUncertain: 'skip' | 'resend';
  retryFailed: boolean;
  replace: ReadonlySet<string>;
  rejections: ReadonlyMap<string, { attempt: number; note?: string }>;
  download: boolean;
  account: string | undefined;
  project: string | undefined;
  outputDir: string | undefined;
  recordedOutputDir: string | undefined;
  host: string | undefined;
  downloadOnly: boolean;
  runJobs: number | undefined;
}

/** Applies defaults and checks ranges. `budget` is the manifest's, combined with `maxCredits`. */
export function resolveExecuteOptions(options: ExecuteOptions, budget: number | undefined): ResolvedOptions {
  const concurrency = options.concurrency ?? MAX_CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > MAX_CONCURRENCY) {
    throw new UsageError(
      `Concurrency must be an integer from 1 to ${MAX_CONCURRENCY}; received ${concurrency}.`,
    );
  }
  const pollIntervalMs = options.pollIntervalMs ?? [3000, 5000];
  if (pollIntervalMs[0] < 0 || pollIntervalMs[1] < pollIntervalMs[0]) {
    throw new UsageError(
      `Poll interval must be [min, max] with 0 <= min <= max; received [${pollIntervalMs.join(', ')}].`,
    );
  }
  if (options.download === true && options.outputDir === undefined) {
    throw new UsageError('Downloading results needs an output folder.');
  }
  if (options.downloadOnly === true && options.download !== true) {
    throw new UsageError('Downloading only needs downloads on and an output folder.');
  }
  const caps = [options.maxCredits, budget].filter((value): value is number => value !== undefined);
  return {
    runId: options.runId,
    concurrency,
    pollIntervalMs,
    firstPollAfterMs: options.firstPollAfterMs,
    jobDeadlineMs: options.jobDeadlineMs ?? 15 * 60 * 1000,
    maxCredits: caps.length === 0 ? undefined : Math.min(...caps),
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    idempotencyWindowMs: options.idempotencyWindowMs ?? 270_000,
    onUncertain: options.onUncertain ?? 'skip',
    retryFailed: options.retryFailed ?? false,
    replace: new Set(options.replace ?? []),
    rejections: options.rejections ?? new Map(),
    download: options.download ?? false,
    account: options.account,
    project: options.project,
    outputDir: options.outputDir,
    recordedOutputDir: options.recordedOutputDir,
    host: options.host,
    downloadOnly: options.downloadOnly ?? false,
    runJobs: options.runJobs,
  };
}
