import { mkdir, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { PlannedJob } from '../plan/types.js';
import type { JobState } from '../state/job-state.js';
import type { ExecutionContext } from './context.js';
import { errorMessageOf } from './error-info.js';
import { setAsideSuperseded } from './set-aside-superseded.js';
import { buildOutputName, extensionFromUrl, resolveOutputPath, sniffExtension } from './output-path.js';

/**
 * Downloads every result of a done job that is not downloaded yet into the output folder and journals
 * each file with its size and SHA-256. Returns the files of the job and how many downloads failed
 * (reported as warnings; a later apply downloads them again).
 */
export async function downloadResults(
  ctx: ExecutionContext,
  job: PlannedJob,
): Promise<{ files: string[]; failures: number }> {
  const outputDir = ctx.options.outputDir;
  const state = ctx.jobs.get(job.id);
  const last = state?.attempts.at(-1);
  if (outputDir === undefined || state === undefined || last === undefined || last.outcome !== 'done') {
    return { files: [], failures: 0 };
  }
  const files: string[] = [];
  let failures = 0;
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
      continue;
    }
    try {
      let file = resolveOutputPath(outputDir, buildOutputName(job.id, index, url, job.kind));
      const { bytes, sha256 } = await ctx.client.downloadFile(url, file, { signal: ctx.downloadSignal });
      if (extensionFromUrl(url) === undefined) file = await renameByContent(outputDir, file, job, index, url);
      await ctx.record({ type: 'downloaded', id: job.id, url, file, bytes, sha256 });
      ctx.emit({ type: 'downloaded', id: job.id, url, file, bytes, sha256 });
      files.push(file);
    } catch (error) {
      failures++;
      const reason = ctx.downloadSignal.aborted
        ? 'stopped by the interrupt'
        : `failed: ${errorMessageOf(error)}`;
      ctx.emit({
        type: 'warning',
        id: job.id,
        message: `Downloading result ${index + 1} of job ${job.id} ${reason}; a later apply tries again.`,
      });
    }
  }
  return { files, failures };
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
