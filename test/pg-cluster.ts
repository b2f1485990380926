import { execFile as execFileCb, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';

const execFile = promisify(execFileCb);

/**
 * Runs `task` on a client connected to the database at `url`, as no runner would (to read what the
 * runner wrote, or to damage or age it), and closes the client whatever happens.
 */
export async function withPgClient<T>(url: string, task: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await task(client);
  } finally {
    await client.end();
  }
}

/** A throwaway PostgreSQL server for one test file. */
export interface PgCluster {
  /** `postgres://postgres@127.0.0.1:PORT/runner` (trust authentication: no password). */
  readonly url: string;
  readonly port: number;
  /** A new database on this server (each test can start from empty tables); returns its URL. */
  createDatabase(): Promise<string>;
  /** `pg_ctl restart` (a server restart mid-run). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** Where Debian's PostgreSQL programs are, or undefined when no server is installed. */
export function findPgBin(): string | undefined {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Whether the PostgreSQL tests run: they need the server's programs. In CI (`CI=true`) a missing
 * server fails the run instead of skipping these tests (`.ci/run` installs it).
 */
export function pgAvailable(): boolean {
  const available = findPgBin() !== undefined;
  if (!available && process.env.CI === 'true') {
    throw new Error('PostgreSQL is not installed (pg_config not found): CI must run the PostgreSQL tests.');
  }
  return available;
}

/**
 * `initdb` into a temporary folder and `pg_ctl start` on a free port of 127.0.0.1. Run as root (CI),
 * the server runs as the unprivileged `postgres` user (`runuser -u postgres --`; PostgreSQL refuses
 * root), so the folder is handed to that user.
 */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = findPgBin();
  if (bin === undefined) throw new Error('pg_config not found: install the postgresql package');
  const dir = mkdtempSync(join(tmpdir(), 'runner-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (program: string, args: string[]) =>
    asRoot
      ? execFile('runuser', ['-u', 'postgres', '--', join(bin, program), ...args])
      : execFile(join(bin, program), args);
  const data = join(dir, 'data');
  const port = await freePort();
  await run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const serverOptions = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=50`;
  const start = () => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', serverOptions, '-w', 'start']);
  await start();
  const psql = (sql: string) =>
    execFile(join(bin, 'psql'), [
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      '-d',
      'postgres',
      '-c',
      sql,
    ]);
  const urlOf = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  await psql('CREATE DATABASE runner');
  let databases = 0;
  return {
    url: urlOf('runner'),
    port,
    async createDatabase() {
      const name = `t${++databases}`;
      await psql(`CREATE DATABASE "${name}"`);
      return urlOf(name);
    },
    async restart() {
      await run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      await start();
    },
    async stop() {
      await run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One throwaway cluster for the tests of the file (or `describe` block) that calls this: started in
 * `beforeAll` (unless `start` is false: a case of a `describe.each` that needs none), stopped in
 * `afterAll`. Returns the cluster once started.
 */
export function usePgCluster(start = true): () => PgCluster {
  let cluster: PgCluster | undefined;
  beforeAll(async () => {
    if (start) cluster = await startPgCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  return () => {
    if (cluster === undefined) throw new Error('the PostgreSQL cluster did not start');
    return cluster;
  };
}

/** A port nobody listens on now (the server takes it a moment later). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}
