import { mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PlannedJob } from '../plan/types.js';
import type { JobState } from '../state/job-state.js';
import type { ExecutionContext } from './context.js';
import type { SavedResult } from './options.js';
import { errorMessageOf } from './error-info.js';
import { setAsideSuperseded } from './set-aside-superseded.js';
import { buildOutputName, extensionFromUrl, resolveOutputPath, sniffExtension } from './output-path.js';

/**
 * Downloads every result of a done job that is not downloaded yet into the output folder and journals
 * each file with the size and SHA-256 of the bytes on disk. Returns the files of the job and how many
 * downloads failed: those results are owed (the job is not done for the user until they are saved)
 * and a later apply, or `apply --download-only`, fetches them again while their links live. A full
 * disk or a journal that cannot be written also stops new creates: each would pay for a result that
 * cannot be kept.
 */
export async function downloadResults(
  ctx: ExecutionContext,
  job: PlannedJob,
): Promise<{ files: string[]; failures: number; error?: string }> {
  const outputDir = ctx.options.outputDir;
  const state = ctx.jobs.get(job.id);
  const last = state?.attempts.at(-1);
  if (outputDir === undefined || state === undefined || last === undefined || last.outcome !== 'done') {
    return { files: [], failures: 0 };
  }
  const files: string[] = [];
  let failures = 0;
  let firstError: string | undefined;
  await mkdir(outputDir, { recursive: true, mode: 0o700 });
  await setAsideOldAttempts(ctx, job.id, state);
  for (const [index, url] of last.resultUrls.entries()) {
    const already = state.downloads.find((download) => download.url === url);
    if (already !== undefined) {
      files.push(already.file);
      continue;
    }
    if (ctx.downloadSignal.aborted) {
      // Not downloaded in this run: counted, so an interrupted run never reports every file present.
      failures++;
      firstError ??= 'the download was stopped by the interrupt';
      continue;
    }
    let saved: { file: string; bytes: number; sha256: string } | undefined;
    try {
      let file = resolveOutputPath(outputDir, buildOutputName(job.id, index, url, job.kind));
      const { bytes, sha256 } = await ctx.client.downloadFile(url, file, {
        signal: ctx.downloadSignal,
        // A URL kept redacted (it held the key) is fetched by polling the job again after a restart.
        ...(last.jobId === undefined ? {} : { jobId: last.jobId }),
        resultIndex: index,
      });
      if (extensionFromUrl(url) === undefined) file = await renameByContent(outputDir, file, job, index, url);
      saved = { file, bytes, sha256 };
    } catch (error) {
      failures++;
      firstError ??= reportFailedDownload(ctx, job.id, index, outputDir, error);
      continue;
    }
    try {
      await ctx.record({ type: 'downloaded', id: job.id, url, ...saved });
    } catch (error) {
      failures++;
      firstError ??= `the journal could not record the download: ${errorMessageOf(error)}`;
      ctx.stopCreating(
        'error',
        `No new jobs are created: the journal could not record the download of job ${job.id} (${errorMessageOf(error)}).`,
      );
      continue;
    }
    ctx.emit({ type: 'downloaded', id: job.id, url, ...saved });
    files.push(saved.file);
    await afterDownload(ctx, { id: job.id, kind: job.kind, file: saved.file, sha256: saved.sha256 });
  }
  return {
    files,
    failures,
    ...(firstError === undefined ? {} : { error: `result not saved: ${firstError}` }),
  };
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

/** Moves the files of replaced attempts aside; a failure is a warning, never a lost download. */
async function setAsideOldAttempts(ctx: ExecutionContext, id: string, state: JobState): Promise<void> {
  try {
    const moved = await setAsideSuperseded(state);
    if (moved.length > 0) {
      ctx.emit({
        type: 'warning',
        id,
        message: `Job ${id} was run again: ${moved.length} file(s) of its earlier attempt moved to ${dirname(moved[0]?.to ?? '')}.`,
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

/** A URL without a known extension: name the file after what its first bytes show it to be. */
async function renameByContent(
  outputDir: string,
  file: string,
  job: PlannedJob,
  index: number,
  url: string,
): Promise<string> {
  const head = new Uint8Array(16);
  const handle = await open(file, 'r');
  try {
    await handle.read(head, 0, head.length, 0);
  } finally {
    await handle.close();
  }
  const extension = sniffExtension(head);
  if (extension === undefined) return file;
  const target = resolveOutputPath(outputDir, buildOutputName(job.id, index, url, job.kind, extension));
  if (target !== file) await rename(file, target);
  return target;
}
