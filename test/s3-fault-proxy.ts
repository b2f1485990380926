import { createHash } from 'node:crypto';
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does with one request: pass it on, answer for the store, delay it, or cut it. */
export type Fault =
  | 'pass'
  | 'reset'
  | { delayMs: number }
  /** Held until the promise settles (another request's arrival, say), then passed on. */
  | { until: Promise<unknown> }
  | { status: number; code: string; message?: string; headers?: Record<string, string> }
  /**
   * Passed on, the store's answer headers then rewritten: given the request's headers and the SHA-256
   * (base64) of the body the proxy passed on, as a store that verifies checksums measures it. A store
   * that echoes `x-amz-checksum-sha256` as AWS S3 does, one that echoes a wrong one, an ETag changed.
   */
  | {
      answer: (
        sent: { headers: IncomingHttpHeaders; sha256: string },
        headers: IncomingHttpHeaders,
      ) => IncomingHttpHeaders;
      /** The store's answer body rewritten too (an XML answer's element changed, say). */
      body?: (text: string) => string;
    };

/** A loopback HTTP proxy in front of the S3 server that misbehaves as the test says. */
export interface FaultProxy {
  /** `http://127.0.0.1:PORT`, for AWS_ENDPOINT_URL_S3. */
  readonly endpoint: string;
  /** The requests seen, as `METHOD path?query`. */
  readonly seen: string[];
  close(): Promise<void>;
}

/**
 * Starts the proxy on 127.0.0.1, port 0. `decide` is asked for each request (with its method, URL and
 * its number from 0): an S3 error answer is XML as S3 writes it, `reset` destroys the connection
 * before any answer, a delay (or a promise) holds the request before passing it on.
 */
export async function startFaultProxy(
  target: string,
  decide: (request: IncomingMessage, index: number) => Fault,
): Promise<FaultProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const upstream = new URL(target);
  const server: Server = createServer((incoming, answer) => {
    const fault = decide(incoming, seen.length);
    seen.push(`${incoming.method} ${incoming.url}`);
    if (fault === 'reset') {
      incoming.socket.destroy();
      return;
    }
    if (typeof fault === 'object' && 'status' in fault) {
      incoming.resume();
      incoming.on('end', () => {
        answer.writeHead(fault.status, { 'content-type': 'application/xml', ...fault.headers });
        answer.end(
          `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${fault.code}</Code>` +
            `<Message>${fault.message ?? fault.code}</Message><RequestId>proxy</RequestId></Error>`,
        );
      });
      return;
    }
    const rewrite = typeof fault === 'object' && 'answer' in fault ? fault.answer : undefined;
    const rewriteBody = typeof fault === 'object' && 'answer' in fault ? fault.body : undefined;
    const measured = rewrite === undefined ? undefined : createHash('sha256');
    if (measured !== undefined) incoming.on('data', (chunk: Buffer) => measured.update(chunk));
    const forward = () => {
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: incoming.headers,
        },
        (back) => {
          const headers =
            rewrite === undefined || measured === undefined
              ? back.headers
              : rewrite(
                  { headers: incoming.headers, sha256: measured.digest('base64') },
                  { ...back.headers },
                );
          if (rewriteBody === undefined) {
            answer.writeHead(back.statusCode ?? 502, headers);
            back.pipe(answer);
            return;
          }
          const read: Buffer[] = [];
          back.on('data', (chunk: Buffer) => read.push(chunk));
          back.on('end', () => {
            const text = Buffer.from(rewriteBody(Buffer.concat(read).toString('utf8')));
            const { 'transfer-encoding': _chunked, ...rest } = headers;
            answer.writeHead(back.statusCode ?? 502, { ...rest, 'content-length': String(text.length) });
            answer.end(text);
          });
        },
      );
      out.on('error', () => answer.destroy());
      incoming.pipe(out);
    };
    if (typeof fault === 'object' && 'until' in fault) void fault.until.finally(forward);
    else if (typeof fault === 'object' && 'delayMs' in fault) setTimeout(forward, fault.delayMs);
    else forward();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
