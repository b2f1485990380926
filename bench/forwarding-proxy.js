/**
 * A loopback HTTP proxy for a benchmark: every request is passed on to `target` as it came, and
 * `onRequest` sees it first (to record it, or to note when a request of interest arrives).
 */
import { createServer, request } from 'node:http';

export function startForwardingProxy(target, onRequest = () => {}) {
  const upstream = new URL(target);
  const server = createServer((incoming, answer) => {
    onRequest(incoming);
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (reply) => {
        answer.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(answer);
      },
    );
    incoming.pipe(out);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() }),
    ),
  );
}
