import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { createHash } from 'node:crypto';
import type { LocalFileRef } from '../manifest/types.js';
import type { PlannedParamValue } from '../manifest/planned-job.js';
import { isLocalFileRef } from '../catalog/local-files.js';
import { RunnerError } from '../errors.js';
import type { ExecutionContext } from './context.js';

/** The local files of a job's params, directly or inside arrays. */
export function listLocalFiles(params: Record<string, PlannedParamValue>): LocalFileRef[] {
  return Object.values(params).flatMap((value) =>
    (Array.isArray(value) ? (value as unknown[]) : [value]).filter(isLocalFileRef),
  );
}

/**
 * Forgets the uploaded URLs of a job's local files after the service refused the job (HTTP 400): a
 * URL it can no longer fetch would otherwise fail the job on every later run. They are uploaded again.
 */
export async function forgetUploads(
  ctx: ExecutionContext,
  params: Record<string, PlannedParamValue>,
): Promise<boolean> {
  const refs = listLocalFiles(params);
  for (const ref of refs) await ctx.uploadCache.delete(ref.sha256);
  return refs.length > 0;
}

/**
 * Replaces every {@link LocalFileRef} in `params` (directly or inside an array) by the URL of its
 * uploaded content. Each content is uploaded once: the cache is keyed by SHA-256 and shared across
 * runs; concurrent jobs using the same file share one upload.
 */
export async function uploadReferences(
  ctx: ExecutionContext,
  jobId: string,
  params: Record<string, PlannedParamValue>,
): Promise<Record<string, unknown>> {
  const resolved: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (isLocalFileRef(value)) {
      resolved[name] = await resolveRef(ctx, jobId, value);
    } else if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const item of value) items.push(isLocalFileRef(item) ? await resolveRef(ctx, jobId, item) : item);
      resolved[name] = items;
    } else {
      resolved[name] = value;
    }
  }
  return resolved;
}

async function resolveRef(ctx: ExecutionContext, jobId: string, ref: LocalFileRef): Promise<string> {
  const cached = ctx.uploadCache.get(ref.sha256);
  if (cached !== undefined) {
    ctx.emit({ type: 'uploaded', id: jobId, file: ref.localFile, sha256: ref.sha256, cached: true });
    return cached;
  }
  const shared = ctx.uploadsInFlight.get(ref.sha256);
  if (shared !== undefined) {
    // Another job is uploading the same content right now: wait for its URL instead of uploading twice.
    const url = await shared;
    ctx.emit({ type: 'uploaded', id: jobId, file: ref.localFile, sha256: ref.sha256, cached: true });
    return url;
  }
  const pending = uploadOnce(ctx, jobId, ref);
  ctx.uploadsInFlight.set(ref.sha256, pending);
  try {
    return await pending;
  } finally {
    ctx.uploadsInFlight.delete(ref.sha256);
  }
}

async function uploadOnce(ctx: ExecutionContext, jobId: string, ref: LocalFileRef): Promise<string> {
  const bytes = new Uint8Array(await readFile(ref.path));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (sha256 !== ref.sha256) {
    throw new RunnerError(
      'INVALID_INPUT',
      `The local file ${ref.localFile} (${ref.path}) changed since the plan was made (expected SHA-256 ${ref.sha256}, found ${sha256}).`,
      {
        hint: 'Run the command again so the plan uses the current file.',
      },
    );
  }
  const publicUrl = await ctx.client.uploadImage(
    { fileName: basename(ref.path), contentType: ref.contentType, bytes },
    { signal: ctx.hardSignal },
  );
  await ctx.uploadCache.set(ref.sha256, publicUrl);
  ctx.emit({ type: 'uploaded', id: jobId, file: ref.localFile, sha256: ref.sha256, cached: false });
  return publicUrl;
}
