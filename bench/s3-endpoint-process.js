/**
 * An S3 endpoint for a benchmark in a process of its own, so that what it costs the machine's cores is
 * measured apart from the benchmark's other servers: forked with an IPC channel,
 * `fork('bench/s3-endpoint-process.js', [kind, dir])` where kind is `bare` (./bare-s3-server.js) or
 * `s3rver` (./s3-server.js). It sends `{ env }` once listening, then answers each `'cpu'` message with
 * `{ cpuMs }` (its user + system CPU time so far) and each `'clear'` with `{ cleared: true }` once it has
 * dropped what it stores (the bare endpoint keeps bodies in memory; s3rver's folder is the caller's).
 * It ends when the channel closes.
 */
import { startBareS3Server } from './bare-s3-server.js';
import { startS3Server } from './s3-server.js';

const [kind, dir] = process.argv.slice(2);
const server = kind === 'bare' ? await startBareS3Server(dir) : await startS3Server(dir);
process.on('message', (message) => {
  if (message === 'cpu') {
    const { user, system } = process.cpuUsage();
    process.send({ cpuMs: (user + system) / 1000 });
  } else if (message === 'clear') {
    server.clear?.();
    process.send({ cleared: true });
  }
});
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
process.send({ env: server.env });
