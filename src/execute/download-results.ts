import type { PlannedJob } from '../manifest/planned-job.js';
import { readableUtcTime } from '../readable-time.js';
import type { ResultFiles } from '../results/result-files.js';
import { holdsRecorded, isHeldHere } from '../results/held-here.js';
import { joinKey, keyFolder } from '../results/result-key.js';
import { RESULT_RETENTION_MS } from '../service/job-status.js';
import type { DownloadState, JobState } from '../state/index.js';
import type { ExecutionContext } from './context.js';
import type { SavedResult } from './options.js';
import { ImageKeeper, type KeptImage } from './kept-image.js';
import { errorMessageOf } from './error-info.js';
import { setAsideSuperseded } from './set-aside-superseded.js';
import { buildOutputName, extensionFromUrl, sniffExtension } from './output-path.js';

/** What {@link downloadResults} did for one job. */
export interface DownloadedResults {
  /** The job's files as recorded (keys relative to the run's output root). */
  files: string[];
  /** Results not saved here: owed, or missing here and not fetched again. */
  failures: number;
  error?: string;
  /** How many results this machine lacked and fetched again (`verify`). */
  refetched?: number;
}

/**
 * Downloads every result of a done job that is not downloaded yet into the run's results store and
 * journals each one by its key (relative to the run's output root), with the size and SHA-256 of the
 * bytes stored. With `verify`, a result the journal records as saved is checked in THIS machine's
 * store too (present, same size and SHA-256): one another machine saved, or one moved away, is fetched
 * again while its link lives (no create, nothing paid), else reported with when and where it was saved
 * (#30.2). Returns the files of the job and how many results are not saved here: those are owed (the
 * job is not done for the user until they are saved). A full disk or a journal that cannot be written
 * also stops new creates: each would pay for a result that cannot be kept.
 */
export async function downloadResults(
  ctx: ExecutionContext,
  job: PlannedJob,
  mode: { verify?: boolean } = {},
): Promise<DownloadedResults> {
  const results = ctx.results;
  const state = ctx.jobs.get(job.id);
  const last = state?.attempts.at(-1);
  if (results === undefined || state === undefined || last === undefined || last.outcome !== 'done') {
    return { files: [], failures: 0 };
  }
  const location = results.store.location;
  const files: string[] = [];
  let failures = 0;
  let refetched = 0;
  let firstError: string | undefined;
  await setAsideOldAttempts(ctx, job.id, state, results);
  for (const [index, url] of last.resultUrls.entries()) {
    const already = state.downloads.find((download) => download.url === url);
    if (already !== undefined && (mode.verify !== true || (await isHeldHere(results, already)))) {
      files.push(already.file);
      continue;
    }
    if (ctx.downloadSignal.aborted) {
      // Not downloaded in this run: counted, so an interrupted run never reports every file present.
      failures++;
      firstError ??= 'the download was stopped by the interrupt';
      continue;
    }
    let got: Awaited<ReturnType<typeof downloadOne>>;
    try {
      got = await downloadOne(ctx, results, job, index, url, last.jobId, already);
    } catch (error) {
      failures++;
      firstError ??=
        already === undefined
          ? reportFailedDownload(ctx, job.id, index, location, error)
          : reportLacking(ctx, job.id, index, location, already, last.completedAt, error);
      continue;
    }
    const saved = { file: got.file, bytes: got.bytes, sha256: got.sha256 };
    try {
      if (already !== undefined) refetched++;
      // The same bytes as recorded: nothing new to journal (another machine's record stands).
      const same = already !== undefined && holdsRecorded(saved, already);
      if (!same) {
        try {
          await ctx.record({
            type: 'downloaded',
            id: job.id,
            url,
            ...saved,
            ...(ctx.machine === undefined ? {} : { machine: ctx.machine }),
          });
        } catch (error) {
          failures++;
          firstError ??= `the journal could not record the download: ${errorMessageOf(error)}`;
          ctx.stopCreating(
            'error',
            `No new jobs are created: the journal could not record the download of job ${job.id} (${errorMessageOf(error)}).`,
          );
          continue;
        }
      }
      const shown = results.pathOf(saved.file) ?? `${location}/${saved.file}`;
      ctx.emit({ type: 'downloaded', id: job.id, url, ...saved, file: shown });
      files.push(saved.file);
      // The image's bytes kept for its thumbnail (a bucket output), never journaled.
      await afterDownload(ctx, {
        id: job.id,
        kind: job.kind,
        file: shown,
        key: saved.file,
        sha256: saved.sha256,
        ...got.kept,
      });
    } finally {
      // A kept file lives only as long as its thumbnail is being made.
      await got.release?.().catch(() => undefined);
    }
  }
  return {
    files,
    failures,
    ...(refetched === 0 ? {} : { refetched }),
    ...(firstError === undefined ? {} : { error: `result not saved: ${firstError}` }),
  };
}

/**
 * Streams result `index` into the store under its key (the recorded one when fetching a result this
 * machine lacks) and returns what is stored. A URL without a known extension names the result after
 * what its first bytes show it to be: the key is chosen from the sniffed head before the put, so
 * nothing is ever moved (a bucket has no rename).
 */
async function downloadOne(
  ctx: ExecutionContext,
  results: ResultFiles,
  job: PlannedJob,
  index: number,
  url: string,
  jobId: string | undefined,
  already: DownloadState | undefined,
): Promise<{
  file: string;
  bytes: number;
  sha256: string;
  /** An image's bytes kept for its thumbnail, and what lets them go (removes a kept file). */
  kept?: KeptImage;
  release?: () => Promise<void>;
}> {
  let key =
    already === undefined ? buildOutputName(job.id, index, url, job.kind) : results.keyOf(already.file);
  // An image going to a bucket is kept as it streams by (each attempt afresh), for its thumbnail: else
  // the thumbnail would read every image back from the bucket (a GET, egress where billed).
  const keep = ctx.afterDownload !== undefined && job.kind === 'image' && results.pathOf(key) === undefined;
  let keeper: ImageKeeper | undefined;
  try {
    const { bytes, sha256 } = await ctx.client.downloadTo(
      url,
      async (body, info) => {
        if (already === undefined && extensionFromUrl(url) === undefined) {
          const extension = sniffExtension(info.head);
          if (extension !== undefined)
            key = joinKey(keyFolder(key), buildOutputName(job.id, index, url, job.kind, extension));
        }
        await keeper?.discard();
        keeper = keep ? new ImageKeeper(info.sizeHint) : undefined;
        return results.store.put(key, keeper === undefined ? body : keeper.pass(body), {
          signal: info.signal,
          ...(info.contentType === undefined ? {} : { contentType: info.contentType }),
          ...(info.sizeHint === undefined ? {} : { sizeHint: info.sizeHint }),
        });
      },
      {
        signal: ctx.downloadSignal,
        // A URL kept redacted (it held the key) is fetched by polling the job again after a restart.
        ...(jobId === undefined ? {} : { jobId }),
        resultIndex: index,
      },
    );
    const kept = await keeper?.take(bytes);
    return {
      file: key,
      bytes,
      sha256,
      ...(kept === undefined ? {} : { kept, release: () => keeper?.discard() ?? Promise.resolve() }),
    };
  } catch (error) {
    await keeper?.discard();
    throw error;
  }
}

/** Runs `ExecuteDeps.afterDownload` (thumbnails): its failure is a warning, the result is saved all the same. */
async function afterDownload(ctx: ExecutionContext, saved: SavedResult): Promise<void> {
  if (ctx.afterDownload === undefined) return;
  try {
    await ctx.afterDownload(saved);
  } catch (error) {
    ctx.emit({
      type: 'warning',
      id: saved.id,
      message: `No thumbnail for ${saved.file}: ${errorMessageOf(error)} (the report shows the file itself).`,
    });
  }
}

/** File-system errors that mean the disk holding the output folder has no room. */
const FULL_DISK_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/**
 * Says why result `index` of a job was not saved, and returns the reason. A full disk names the folder
 * and stops new creates (each would pay for a result with nowhere to go); every failure leaves the
 * result owed.
 */
function reportFailedDownload(
  ctx: ExecutionContext,
  id: string,
  index: number,
  outputDir: string,
  error: unknown,
): string {
  const code = (error as { code?: unknown } | null)?.code;
  const owed = `the job is paid and its result is owed: a later \`runner apply\` (or \`apply --download-only\`) fetches it while its link lives`;
  if (typeof code === 'string' && FULL_DISK_CODES.has(code)) {
    ctx.emit({
      type: 'warning',
      id,
      message: `Result ${index + 1} of job ${id} was not saved: the disk holding ${outputDir} is full (${code}); the partial file was removed. Free space there; ${owed}.`,
    });
    ctx.stopCreating('error', `No new jobs are created: the disk holding ${outputDir} is full.`);
    return `the disk holding ${outputDir} is full (${code})`;
  }
  const reason = ctx.downloadSignal.aborted
    ? 'was stopped by the interrupt'
    : `failed: ${errorMessageOf(error)}`;
  ctx.emit({
    type: 'warning',
    id,
    message: `Downloading result ${index + 1} of job ${id} ${reason}; ${owed}.`,
  });
  return reason.replace(/^failed: /, '');
}

/**
 * Says why a result the journal records as saved, missing or different in this machine's store, could
 * not be fetched again, honestly: expired (its link's retention passed, or the result host refuses it)
 * with when and where it was saved, never "File not found" alone. Returns the reason.
 */
function reportLacking(
  ctx: ExecutionContext,
  id: string,
  index: number,
  location: string,
  saved: DownloadState,
  completedAt: number | undefined,
  error: unknown,
): string {
  const status = (error as { status?: unknown } | null)?.status;
  const expiresAt = completedAt === undefined ? undefined : completedAt + RESULT_RETENTION_MS;
  const expired =
    status === 403 ||
    status === 404 ||
    status === 410 ||
    (expiresAt !== undefined && ctx.clock.now() >= expiresAt);
  const where = `saved on ${saved.machine ?? 'another machine'} at ${readableUtcTime(saved.at)}`;
  const passed = expiresAt !== undefined && ctx.clock.now() >= expiresAt;
  const refused = typeof status === 'number' ? `the result host answers HTTP ${status}; ` : '';
  const reason = expired
    ? `its link expired${passed ? ` on ${readableUtcTime(expiresAt)}` : ''} (${refused}${where})`
    : `its link could not be read: ${errorMessageOf(error)} (${where}; a later apply fetches it while the link lives)`;
  ctx.emit({
    type: 'warning',
    id,
    message: `Result ${index + 1} of job ${id} is missing from ${location} and was not fetched again: ${reason}.`,
  });
  return `missing here: ${reason}`;
}

/** Moves the files of replaced attempts aside; a failure is a warning, never a lost download. */
async function setAsideOldAttempts(
  ctx: ExecutionContext,
  id: string,
  state: JobState,
  results: ResultFiles,
): Promise<void> {
  try {
    const moved = await setAsideSuperseded(state, results);
    if (moved.length > 0) {
      ctx.emit({
        type: 'warning',
        id,
        message: `Job ${id} was run again: ${moved.length} file(s) of its earlier attempt moved to ${keyFolder(moved[0]?.to ?? '')} in ${results.store.location}.`,
      });
    }
  } catch (error) {
    ctx.emit({
      type: 'warning',
      id,
      message: `Could not move the earlier results of job ${id} aside: ${errorMessageOf(error)}; they may sit beside the new ones.`,
    });
  }
}
