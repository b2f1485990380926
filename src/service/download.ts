/**
 * Streams a result from its link into a sink (the run's results store) without a file of its own: the
 * answer is checked (status, size cap, media sniff of its first bytes) before the sink sees a byte, the
 * body is counted as it passes, and what the sink stored is returned. Retries like any other safe GET
 * (each attempt restarts the sink: a store's put is all or nothing, so nothing partial is ever
 * visible); never sends the API key.
 */
import { createHttpError, NetworkError, UnexpectedResponseError, type RequestContext } from './errors.js';
import { describeUrl, discardBody, formatBytes, readHeader, type Http, type HttpResponse } from './http.js';
import { describeNotMedia, MEDIA_HEAD_BYTES } from './result-media.js';
import { runWithRetry, type RetryContext } from './retry-loop.js';

/** Results can be large videos: the deadline covers the whole body and every retry. */
export const DEFAULT_DOWNLOAD_TIMEOUT_MS = 600_000;

/** 2 GB: above any result the service makes, below what fills a disk by accident. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 ** 3;

export interface DownloadDeps {
  http: Http;
  retry: Omit<RetryContext, 'method' | 'path' | 'safety' | 'signal'>;
  /** Total deadline of one download, all attempts together (a drip-fed body must not retry for ever). */
  timeoutMs: number;
  /** Largest result taken; a larger one is an error and the sink keeps nothing. */
  maxBytes: number;
}

/** What the sink of a download is told with the body. */
export interface DownloadSinkInfo {
  /** The body's first bytes (up to {@link MEDIA_HEAD_BYTES}), already sniffed as media: what it is. */
  head: Uint8Array;
  /** The answer's `Content-Type`, when it gave one. */
  contentType?: string;
  /** The answer's `Content-Length`, when it gave one (the body is checked to be exactly that long). */
  sizeHint?: number;
  /** Aborts with the caller's signal or the download's deadline: the sink must then keep nothing. */
  signal: AbortSignal;
}

/** What a sink stored: the size and SHA-256 of the bytes it HOLDS (not of those it was sent). */
export interface StoredBody {
  bytes: number;
  sha256: string;
}

/**
 * Stores one body, all or nothing, and says what it holds (a results store's `put`). The body throws
 * when the download fails (cut short, over the size cap, aborted): the sink must then keep nothing and
 * rethrow that error as it is, so that the download can tell a retryable reset from a full disk.
 */
export type DownloadSink = (body: AsyncIterable<Uint8Array>, info: DownloadSinkInfo) => Promise<StoredBody>;

/**
 * Downloads `url` into `sink`. The API key is never sent, whatever the URL's origin: a result link on
 * the API's own origin must not read an API answer with the key (issue #24.7). An answer that is not
 * media (JSON, HTML, …) is refused before the sink is called: nothing is stored.
 */
export async function downloadTo(
  deps: DownloadDeps,
  url: string,
  sink: DownloadSink,
  signal?: AbortSignal,
): Promise<StoredBody> {
  const context: RequestContext = { method: 'GET', path: describeUrl(url) };
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
        { method: 'GET', url, context, apiKey: 'never', timeoutMs: deps.timeoutMs, signal: combined },
        (response) => storeAnswer(deps, context, response, sink, combined),
      ),
    );
  } catch (error) {
    if (signal?.aborted !== true && deadline.aborted) {
      throw new NetworkError(context, 'timeout', `the download did not finish within ${deps.timeoutMs} ms`);
    }
    throw error;
  }
}

/** One attempt: checks the answer, hands its body to the sink, and checks the sink took all of it. */
async function storeAnswer(
  deps: DownloadDeps,
  context: RequestContext,
  response: HttpResponse,
  sink: DownloadSink,
  signal: AbortSignal,
): Promise<StoredBody> {
  if (response.status < 200 || response.status >= 300) {
    await response.body.dump();
    const retryAfter = readHeader(response, 'retry-after');
    throw createHttpError(context, {
      status: response.status,
      ...(retryAfter === undefined ? {} : { retryAfter }),
    });
  }
  const declaredHeader = Number(readHeader(response, 'content-length'));
  const declared = Number.isSafeInteger(declaredHeader) && declaredHeader >= 0 ? declaredHeader : undefined;
  if (declared !== undefined && declared > deps.maxBytes) {
    discardBody(response);
    throw tooLarge(context, deps.maxBytes, `content-length ${declared}`);
  }
  const contentType = readHeader(response, 'content-type');
  const body = checkedBody(response, context, deps.maxBytes, declared);
  let head: Uint8Array;
  try {
    // The first bytes are held until they show what the answer is: a refused one stores nothing.
    head = await body.readHead();
    const problem = describeNotMedia(contentType, head);
    if (problem !== undefined) {
      throw new UnexpectedResponseError(
        context,
        { status: response.status },
        `${problem}; nothing was saved`,
      );
    }
  } catch (error) {
    discardBody(response);
    throw error;
  }
  let stored: StoredBody;
  try {
    stored = await sink(body.stream(head), {
      head,
      signal,
      ...(contentType === undefined ? {} : { contentType }),
      ...(declared === undefined ? {} : { sizeHint: declared }),
    });
  } finally {
    if (!body.ended()) discardBody(response);
  }
  if (!body.ended() || stored.bytes !== body.received()) {
    throw new Error(
      `${context.path}: the results store holds ${stored.bytes} bytes after ${body.received()} were received${body.ended() ? '' : ' of a body it did not read to its end'}`,
    );
  }
  return stored;
}

/** The answer's body, read once: its head first, then all of it, checked against the cap and its length. */
function checkedBody(
  response: HttpResponse,
  context: RequestContext,
  maxBytes: number,
  declared: number | undefined,
) {
  const chunks = (response.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  let received = 0;
  let ended = false;
  const next = async (): Promise<Uint8Array | undefined> => {
    const step = await chunks.next();
    if (step.done === true) return undefined;
    received += step.value.byteLength;
    if (received > maxBytes) throw tooLarge(context, maxBytes, `more than ${maxBytes} bytes`);
    return step.value;
  };
  return {
    received: () => received,
    ended: () => ended,
    async readHead(): Promise<Uint8Array> {
      const parts: Uint8Array[] = [];
      let size = 0;
      while (size < MEDIA_HEAD_BYTES) {
        const chunk = await next();
        if (chunk === undefined) {
          ended = true;
          break;
        }
        parts.push(chunk);
        size += chunk.byteLength;
      }
      return Buffer.concat(parts);
    },
    async *stream(head: Uint8Array): AsyncGenerator<Uint8Array> {
      if (head.byteLength > 0) yield head;
      if (!ended) {
        for (let chunk = await next(); chunk !== undefined; chunk = await next()) yield chunk;
      }
      if (declared !== undefined && received !== declared) {
        throw new NetworkError(
          context,
          'reset',
          `the body ended after ${received} of the ${declared} bytes its content-length declared`,
        );
      }
      ended = true;
    },
  };
}

function tooLarge(context: RequestContext, maxBytes: number, received: string): Error {
  return new UnexpectedResponseError(
    context,
    { status: 200 },
    `the file is larger than --max-download-size ${formatBytes(maxBytes)} (received ${received}); nothing of it was kept`,
  );
}
