import { createConnection, createServer, type Server, type Socket } from 'node:net';

/** A TCP proxy on 127.0.0.1 to the database that the test can pause (stop forwarding) or cut. */
export async function startProxy(target: number) {
  const pairs = new Set<[Socket, Socket]>();
  let paused = false;
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: target });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    if (paused) for (const socket of pair) socket.pause();
    client.pipe(upstream);
    upstream.pipe(client);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    pause() {
      paused = true;
      for (const pair of pairs) for (const socket of pair) socket.pause();
    },
    resume() {
      paused = false;
      for (const pair of pairs) for (const socket of pair) socket.resume();
    },
    cut() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [client, upstream] of pairs) {
          client.destroy();
          upstream.destroy();
        }
        server.close(() => resolve());
      }),
  };
}
