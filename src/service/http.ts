/**
 * The transport: undici `request` over one keep-alive Agent, a deadline per request, base URL joining,
 * and the rule that `X-Api-Key` goes only to the base URL's origin. Errors without an answer become
 * {@link NetworkError}s classified by whether the service may have seen the request.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { RunnerError } from '../errors.js';
import {
  NetworkError,
  ServiceError,
  UnexpectedResponseError,
  type NetworkFailure,
  type RequestContext,
} from './errors.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from './request-timeout.js';

export interface HttpOptions {
  /** Ends in `/api/v2`; trailing slashes are ignored. */
  baseUrl: string;
  apiKey: string;
  /** Replaces the keep-alive Agent (tests pass undici's MockAgent). Not closed by {@link Http.close}. */
  dispatcher?: Dispatcher;
  /** @default 30_000 */
  requestTimeoutMs?: number;
  userAgent?: string;
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Absolute URL. */
  url: string;
  /** How the request is named in errors and events. */
  context: RequestContext;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** `same-origin`: the key is sent only when `url` is on the base URL's origin. */
  apiKey: 'same-origin' | 'never';
  signal?: AbortSignal;
  /** Overrides the client's request timeout (downloads take longer). */
  timeoutMs?: number;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export interface Http {
  /** `/jobs/abc` → `https://host/api/v2/jobs/abc?…`. */
  resolveApiUrl(path: string, query?: Record<string, string>): string;
  /**
   * Sends one request and hands the response to `consume`, which must read or dump the body. The
   * deadline covers the body as well.
   */
  send<T>(request: HttpRequest, consume: (response: HttpResponse) => Promise<T>): Promise<T>;
  /** Closes the keep-alive Agent (not an injected dispatcher). */
  close(): Promise<void>;
}

/** Creates the transport. One Agent per client: connections are reused across requests. */
export function createHttp(options: HttpOptions): Http {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const baseOrigin = parseBaseUrl(baseUrl).origin;
  const ownAgent =
    options.dispatcher === undefined ? new Agent({ keepAliveTimeout: 10_000, connections: 16 }) : undefined;
  const dispatcher: Dispatcher = options.dispatcher ?? (ownAgent as Agent);
  const defaultTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const userAgent = options.userAgent ?? 'mediagen-runner';

  return {
    resolveApiUrl(path, query) {
      const url = `${baseUrl}/${path.replace(/^\/+/, '')}`;
      const search = query === undefined ? '' : new URLSearchParams(query).toString();
      return search === '' ? url : `${url}?${search}`;
    },

    async send(req, consume) {
      const timeoutMs = req.timeoutMs ?? defaultTimeoutMs;
      const timeout = AbortSignal.timeout(timeoutMs);
      const signal = req.signal === undefined ? timeout : AbortSignal.any([req.signal, timeout]);
      const headers: Record<string, string> = { 'user-agent': userAgent, ...req.headers };
      if (req.apiKey === 'same-origin' && new URL(req.url).origin === baseOrigin) {
        headers['x-api-key'] = options.apiKey;
      }
      try {
        const response = await request(req.url, {
          method: req.method,
          headers,
          body: req.body ?? null,
          signal,
          dispatcher,
        });
        return await consume({ status: response.statusCode, headers: response.headers, body: response.body });
      } catch (error) {
        if (req.signal?.aborted === true) throw req.signal.reason;
        if (timeout.aborted) {
          throw new NetworkError(req.context, 'timeout', `no answer within ${timeoutMs} ms`);
        }
        throw toNetworkError(error, req.context) ?? error;
      }
    },

    async close() {
      await ownAgent?.close();
    },
  };
}

function parseBaseUrl(baseUrl: string): URL {
  try {
    return new URL(baseUrl);
  } catch {
    throw new RunnerError(
      'USAGE',
      `Invalid base URL "${baseUrl}": expected an http(s) URL ending in /api/v2`,
    );
  }
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** `undefined` when `error` is not a transport failure (a bug, a disk error while downloading...). */
function toNetworkError(error: unknown, context: RequestContext): NetworkError | undefined {
  if (error instanceof ServiceError || !(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string') return undefined;
  let failure: NetworkFailure;
  if (CONNECT_CODES.has(code)) failure = 'connect';
  else if (RESET_CODES.has(code)) failure = 'reset';
  else if (TIMEOUT_CODES.has(code)) failure = 'timeout';
  else if (code.startsWith('UND_ERR')) failure = 'other';
  else return undefined;
  // The message of a socket error names host and port at most; never headers.
  return new NetworkError(context, failure, error.message || code, code);
}

/** The first value of a response header. */
export function readHeader(response: HttpResponse, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** `https://host/path` without query or fragment, for messages: a signed URL's token stays out. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** 10 MB: far above any JSON answer of the service, far below what would exhaust memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/**
 * The body as text, refusing more than `maxBytes` (issue #11: a body over the cap is a clear error,
 * never an out-of-memory). A `content-length` over the cap is refused before reading anything.
 */
export async function readTextCapped(
  response: HttpResponse,
  maxBytes: number,
  context: RequestContext,
): Promise<string> {
  const declared = Number(readHeader(response, 'content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardBody(response);
    throw tooLarge(context, response.status, maxBytes, `content-length ${declared}`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    const buffer = chunk as Buffer;
    size += buffer.byteLength;
    if (size > maxBytes) {
      discardBody(response);
      throw tooLarge(context, response.status, maxBytes, `more than ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function tooLarge(context: RequestContext, status: number, maxBytes: number, received: string): Error {
  return new UnexpectedResponseError(
    context,
    { status },
    `the answer is larger than the ${formatBytes(maxBytes)} the runner reads (received ${received}); nothing of it was used`,
  );
}

/** `10 MB`, `2 GB`, `512 bytes`. */
export function formatBytes(bytes: number): string {
  const units = [
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const;
  for (const [unit, size] of units) {
    if (bytes >= size) return `${Number((bytes / size).toFixed(1))} ${unit}`;
  }
  return `${bytes} bytes`;
}

/** Stops reading a body the runner will not use. undici reports the destroy as an error: swallowed. */
export function discardBody(response: HttpResponse): void {
  response.body.on('error', () => undefined);
  response.body.destroy();
}
