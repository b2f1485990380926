/**
 * A throwaway PostgreSQL server for a benchmark: `initdb` into a temporary folder and `pg_ctl start`
 * on a free port of 127.0.0.1 (as the postgres user when run as root; fsync stays on, so commits
 * cost what they cost on a real server), with a database `runner`. `stop()` removes it all.
 */
import { execFile as execFileCb, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCb);

export async function startPgServer() {
  const bin = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  const dir = mkdtempSync(join(tmpdir(), 'runner-bench-pg-'));
  const root = process.getuid?.() === 0;
  if (root) {
    const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const run = (program, args) =>
    root
      ? execFile('runuser', ['-u', 'postgres', '--', join(bin, program), ...args])
      : execFile(join(bin, program), args);
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  const data = join(dir, 'data');
  await run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  // fsync stays on: commits cost what they cost on a real server.
  await run('pg_ctl', [
    '-D',
    data,
    '-l',
    join(dir, 'log'),
    '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`,
    '-w',
    'start',
  ]);
  await execFile(join(bin, 'psql'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-U',
    'postgres',
    '-c',
    'CREATE DATABASE runner',
  ]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/runner`,
    async stop() {
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
