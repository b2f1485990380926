import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { pgAvailable, usePgCluster, withPgClient } from '../pg-cluster.js';
import { listFilesDeep, simulatorEnv, writeApplyWorkspace } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const SENTINEL = 'Zq9sentinelPw';

/** Every text a table of the state database holds, one row a line. */
async function dumpDatabase(url: string): Promise<string> {
  return withPgClient(url, async (client) => {
    const { rows: tables } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
    );
    const texts: string[] = [];
    for (const { name } of tables) {
      const { rows } = await client.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
      texts.push(...rows.map((row) => row.row));
    }
    return texts.join('\n');
  });
}

/**
 * #31.12: a password in any part of the state URL (`user:pw@`, `user:p@w@`, `?password=`,
 * `?sslpassword=`; node-postgres reads them all) is refused, exit 2, naming PGPASSWORD and `.pgpass`,
 * and never reaches stdout, stderr, the log file, the output folder's claim or the database. The
 * cluster trusts every connection, so before the fix a query password was used and shown everywhere.
 */
describe.runIf(pgAvailable())('a password anywhere in the state URL', () => {
  const cluster = usePgCluster();

  it('is refused by every command that takes the URL, and shown nowhere', async () => {
    const simulator = await startSimulator({ timeScale: 0.01, seed: 3 });
    const work = await writeApplyWorkspace('pg-password', {
      name: 'pw',
      subjects: ['fox'],
      styles: ['ink', 'pencil'],
    });
    try {
      const url = await cluster().createDatabase();
      const env = simulatorEnv(simulator);
      // A run in the database, so that runs, status and pull would have something to show.
      const first = await runCli([...work.apply, '--state', url], { env, timeoutMs: 60_000 });
      expect(first.code, first.stderr).toBe(0);

      const hostPart = `127.0.0.1:${cluster().port}`;
      const database = new URL(url).pathname;
      const forms = [
        `postgres://postgres:${SENTINEL}@${hostPart}${database}`,
        `postgres://postgres:pw@${SENTINEL}@${hostPart}${database}`,
        `postgres://postgres@${hostPart}${database}?password=${SENTINEL}`,
        `postgres://postgres@${hostPart}${database}?sslmode=disable&sslpassword=${SENTINEL}`,
        // No server there: a connection error would name the URL.
        `postgres://postgres@127.0.0.1:1${database}?password=${SENTINEL}`,
      ];
      const log = join(work.dir, 'apply.log');
      const pulled = join(work.dir, 'pulled');
      for (const form of forms) {
        const commands = [
          { args: [...work.apply, '--state', form, '--log-file', log], env },
          { args: [...work.apply, '--log-file', log], env: { ...env, RUNNER_STATE_URL: form } },
          { args: ['runs', work.file, '--state', form], env },
          { args: ['status', work.file, '--json'], env: { RUNNER_STATE_URL: form } },
          { args: ['state', 'pull', work.file, '--state-dir', pulled, '--state', form], env },
          { args: ['state', 'lease', work.file, '--state', form], env },
        ];
        const results = await Promise.all(
          commands.map((command) => runCli(command.args, { env: command.env, timeoutMs: 60_000 })),
        );
        for (const [index, command] of commands.entries()) {
          const result = results[index]!;
          const said = `${command.args.join(' ')}\n${result.stderr}`;
          expect(result.code, said).toBe(2);
          expect(result.stderr, said).toMatch(/carries a password/);
          expect(result.stderr, said).toMatch(/PGPASSWORD/);
          expect(result.stderr, said).toMatch(/\.pgpass/);
          expect(result.stdout + result.stderr, said).not.toContain(SENTINEL);
        }
      }
      const written = await listFilesDeep(work.dir);
      for (const file of written) {
        expect(await readFile(file, 'latin1'), file).not.toContain(SENTINEL);
      }
      expect(written).toContain(join(work.dir, 'out', '.runner-run.json'));
      expect(await dumpDatabase(url)).not.toContain(SENTINEL);
      // Nothing more was created: the refused applies never reached the service.
      expect(simulator.stats().jobsCreated).toBe(work.jobIds.length);
    } finally {
      await simulator.close();
      await rm(work.dir, { recursive: true, force: true });
    }
  }, 180_000);
});
