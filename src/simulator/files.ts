import type { IncomingMessage } from 'node:http';
import type { SimulatorCore } from './core.js';
import { resultPathPrefix } from './echo-key.js';
import { answerError, readBody, type Answer } from './http-util.js';
import { parsePromptMarkers } from './markers.js';
import { CONTENT_TYPES, renderJpeg, renderPng } from './media.js';
import { renderMp4 } from './video.js';

/**
 * The blob-storage side of the simulator, outside `/api/v2` and without API key, like real signed
 * storage links: `PUT /__blob/<id>?sig=` (upload), `GET /__files/<id>/<name>` (uploaded file),
 * `GET /__results/<jobId>/<n>.<ext>` (result of a completed job).
 */

const MAX_UPLOAD_BYTES = 20 * 1024 * 1024;

/** The bytes this server serves at `pathname`, or `undefined` when it serves nothing there. */
export function resolveOwnFile(
  core: SimulatorCore,
  pathname: string,
): { bytes: Buffer; contentType: string } | undefined {
  const file = /^\/__files\/([^/]+)\/[^/]+$/.exec(pathname);
  if (file) {
    const upload = core.uploads.get(decodeURIComponent(file[1] ?? ''));
    return upload?.bytes === undefined ? undefined : { bytes: upload.bytes, contentType: upload.contentType };
  }
  const prefix = resultPathPrefix(core);
  if (!pathname.startsWith(`${prefix}/`)) return undefined;
  const result = /^\/([^/]+)\/(\d+)\.(png|jpeg|mp4)$/.exec(pathname.slice(prefix.length));
  if (!result) return undefined;
  core.engine.advance(core.now());
  const job = core.engine.get(decodeURIComponent(result[1] ?? ''));
  const index = Number(result[2]);
  const ext = result[3] as keyof typeof CONTENT_TYPES;
  if (job?.state !== 'complete' || job.outcome.type !== 'complete') return undefined;
  if (ext !== job.resultExt || index < 1 || index > job.outcome.imageCount) return undefined;
  const label = `${core.options.seed}/${job.jobId}/${index}`;
  const imageMiB = parsePromptMarkers(job.prompt ?? '').imageMiB;
  const image = {
    label,
    prompt: job.prompt,
    aspectRatio: job.aspectRatio,
    generation: job.generation,
    ...(imageMiB === undefined ? {} : { padToBytes: imageMiB * 1024 * 1024 }),
  };
  const bytes = ext === 'png' ? renderPng(image) : ext === 'jpeg' ? renderJpeg(image) : renderMp4(image);
  return { bytes, contentType: CONTENT_TYPES[ext] };
}

/** `GET` of a file or result link. */
export function serveFile(core: SimulatorCore, pathname: string): Answer {
  const file = resolveOwnFile(core, pathname);
  return file === undefined
    ? answerError(404, 'The specified blob does not exist.', 'BlobNotFound')
    : { status: 200, raw: file };
}

/** `PUT /__blob/<id>?sig=…` with `x-ms-blob-type: BlockBlob` (api-notes upload step 2). */
export async function storeBlob(core: SimulatorCore, url: URL, request: IncomingMessage): Promise<Answer> {
  if (request.headers['x-ms-blob-type'] !== 'BlockBlob') {
    return answerError(400, 'The x-ms-blob-type header must be BlockBlob.', 'MissingRequiredHeader');
  }
  const id = decodeURIComponent(url.pathname.slice('/__blob/'.length));
  const bytes = await readBody(request, MAX_UPLOAD_BYTES);
  const contentType = request.headers['content-type'];
  if (!core.uploads.put(id, url.searchParams.get('sig'), bytes, contentType)) {
    return answerError(403, 'The signature of the upload link is not valid.', 'AuthenticationFailed');
  }
  return { status: 201 };
}
