import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a route answers; the server writes it (or, under an injected fault, loses it). */
export interface Answer {
  status: number;
  /** A JSON body (the envelope of spec 2.1 on API routes). */
  json?: unknown;
  /** Raw bytes (blob downloads). */
  raw?: { bytes: Buffer; contentType: string };
  headers?: Record<string, string>;
}

/** Spec 2.1 success envelope. Creation responses also carry `errorCode: null`. */
export function answerData(data: unknown, options: { withErrorCode?: boolean } = {}): Answer {
  const json: Record<string, unknown> = { success: true, data, error: null };
  if (options.withErrorCode === true) json.errorCode = null;
  return { status: 200, json };
}

/** Spec 7.1 error envelope. */
export function answerError(
  status: number,
  message: string,
  errorCode: string | null = null,
  headers?: Record<string, string>,
): Answer {
  return { status, json: { success: false, error: message, errorCode }, ...(headers ? { headers } : {}) };
}

export class BodyTooLargeError extends Error {}

/** The whole request body, refusing more than `limit` bytes. */
export async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > limit) throw new BodyTooLargeError(`body exceeds ${limit} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON request body; `undefined` for an empty body, an Error for malformed JSON. */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return new Error('body is not valid JSON');
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Error);
}

export function writeAnswer(response: ServerResponse, answer: Answer): void {
  const headers: Record<string, string | number> = { ...answer.headers };
  let payload: Buffer = Buffer.alloc(0);
  if (answer.raw !== undefined) {
    payload = answer.raw.bytes;
    headers['content-type'] = answer.raw.contentType;
  } else if (answer.json !== undefined) {
    payload = Buffer.from(JSON.stringify(answer.json));
    headers['content-type'] = 'application/json; charset=utf-8';
  }
  headers['content-length'] = payload.length;
  response.writeHead(answer.status, headers);
  response.end(payload);
}

/**
 * Writes `answer`'s headers with its full `content-length`, then only its first `bytes` bytes, and
 * closes the connection: a body cut short (a dropped connection mid-download).
 */
export function writeTruncated(response: ServerResponse, answer: Answer, bytes: number): void {
  const payload = answer.raw?.bytes ?? Buffer.alloc(0);
  response.writeHead(answer.status, {
    ...answer.headers,
    'content-type': answer.raw?.contentType ?? 'application/octet-stream',
    'content-length': payload.length,
  });
  response.write(payload.subarray(0, Math.min(bytes, payload.length)), () => {
    response.socket?.destroy();
  });
}

/**
 * Writes `answer` one byte per `intervalMs` (a hostile slow body, issue #11). Headers go at once;
 * stops when the client goes away. Timers are unref'd so a dripping answer never holds the process.
 */
export function writeDripped(response: ServerResponse, answer: Answer, intervalMs: number): void {
  const payload =
    answer.raw?.bytes ?? Buffer.from(answer.json === undefined ? '' : JSON.stringify(answer.json));
  const contentType = answer.raw?.contentType ?? 'application/json; charset=utf-8';
  response.writeHead(answer.status, {
    ...answer.headers,
    'content-type': contentType,
    'content-length': payload.length,
  });
  let offset = 0;
  const timer = setInterval(() => {
    if (response.destroyed || offset >= payload.length) {
      clearInterval(timer);
      if (!response.destroyed) response.end();
      return;
    }
    response.write(payload.subarray(offset, offset + 1));
    offset += 1;
  }, intervalMs);
  timer.unref();
  response.on('close', () => clearInterval(timer));
}
