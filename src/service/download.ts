/**
 * Streams a result file to disk crash-safely: a temporary sibling, fsync, then rename, so a file at
 * `destinationPath` is always complete. Retries like any other safe GET.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createHttpError, NetworkError, UnexpectedResponseError, type RequestContext } from './errors.js';
import { describeUrl, discardBody, formatBytes, readHeader, type Http } from './http.js';
import { runWithRetry, type RetryContext } from './retry-loop.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../file-modes.js';

/** Results can be large videos: the deadline covers the whole body and every retry. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 600_000;

/** 2 GB: above any result the service makes, below what fills a disk by accident. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;

export interface DownloadDeps {
  http: Http;
  retry: Omit<RetryContext, 'method' | 'path' | 'safety' | 'signal'>;
  /** Total deadline of one download, all attempts together (a drip-fed body must not retry for ever). */
  timeoutMs: number;
  /** Largest file written; a larger one is an error and its partial file is removed. */
  maxBytes: number;
}

/** Downloads `url` to `destinationPath`; the API key goes only to the base URL's own origin. */
export async function downloadToFile(
  deps: DownloadDeps,
  url: string,
  destinationPath: string,
  signal?: AbortSignal,
): Promise<{ bytes: number; sha256: string }> {
  const context: RequestContext = { method: 'GET', path: describeUrl(url) };
  await mkdir(dirname(destinationPath), { recursive: true, mode: PRIVATE_DIR_MODE });
  const deadline = AbortSignal.timeout(deps.timeoutMs);
  const combined = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
  const retryContext: RetryContext = {
    ...deps.retry,
    method: context.method,
    path: context.path,
    safety: 'safe',
    signal: combined,
  };
  try {
    return await runWithRetry(retryContext, () =>
      deps.http.send(
        {
          method: 'GET',
          url,
          context,
          apiKey: 'same-origin',
          timeoutMs: deps.timeoutMs,
          signal: combined,
        },
        async (response) => {
          if (response.status < 200 || response.status >= 300) {
            await response.body.dump();
            const retryAfter = readHeader(response, 'retry-after');
            throw createHttpError(context, {
              status: response.status,
              ...(retryAfter === undefined ? {} : { retryAfter }),
            });
          }
          const declared = Number(readHeader(response, 'content-length'));
          if (Number.isFinite(declared) && declared > deps.maxBytes) {
            discardBody(response);
            throw tooLarge(context, deps.maxBytes, `content-length ${declared}`);
          }
          return writeAtomically(response.body, destinationPath, (bytes) => {
            if (bytes > deps.maxBytes)
              throw tooLarge(context, deps.maxBytes, `more than ${deps.maxBytes} bytes`);
          });
        },
      ),
    );
  } catch (error) {
    if (signal?.aborted !== true && deadline.aborted) {
      throw new NetworkError(context, 'timeout', `the download did not finish within ${deps.timeoutMs} ms`);
    }
    throw error;
  }
}

function tooLarge(context: RequestContext, maxBytes: number, received: string): Error {
  return new UnexpectedResponseError(
    context,
    { status: 200 },
    `the file is larger than --max-download-size ${formatBytes(maxBytes)} (received ${received}); the partial file was removed`,
  );
}

const PART_MARK = '.part-';

/**
 * Deletes `<destination>.part-*` left by a download that a crash (SIGKILL) interrupted. Each result
 * has its own destination and the state lock keeps a second runner out, so any such file is stale.
 */
async function removeStaleParts(destinationPath: string): Promise<void> {
  const prefix = `${basename(destinationPath)}${PART_MARK}`;
  const directory = dirname(destinationPath);
  const names = await readdir(directory).catch(() => [] as string[]);
  await Promise.all(
    names.filter((name) => name.startsWith(prefix)).map((name) => rm(join(directory, name), { force: true })),
  );
}

async function writeAtomically(
  body: AsyncIterable<Uint8Array>,
  destinationPath: string,
  checkSize: (bytes: number) => void,
): Promise<{ bytes: number; sha256: string }> {
  await removeStaleParts(destinationPath);
  const temporaryPath = `${destinationPath}${PART_MARK}${randomBytes(6).toString('hex')}`;
  const hash = createHash('sha256');
  let bytes = 0;
  const file = await open(temporaryPath, 'w', PRIVATE_FILE_MODE);
  try {
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      checkSize(bytes);
      hash.update(chunk);
      await file.write(chunk);
    }
    await file.sync();
    await file.close();
    await rename(temporaryPath, destinationPath);
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temporaryPath, { force: true });
    throw error;
  }
  return { bytes, sha256: hash.digest('hex') };
}
