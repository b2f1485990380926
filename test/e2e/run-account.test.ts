import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { simulatorEnv, writeApplyWorkspace } from './apply-fixtures.js';
import { runCli } from './run-cli.js';
import { stateBackends, useStateBackend } from './state-backends.js';

/**
 * One run pays from one account (#31.7): an apply of the run with another API key (a teammate's) is
 * refused before anything is sent (exit 2), on the folder and on PostgreSQL; the key is never shown.
 */
describe.each(stateBackends())('a second API key on one run, state in %s', (backend) => {
  const states = useStateBackend(backend);

  it('is refused with exit 2, naming both accounts (hashes) and not the key; the first key goes on', async () => {
    const first = await startSimulator({ timeScale: 0.005, seed: 3, apiKey: 'sim-key-account-1' });
    const second = await startSimulator({ timeScale: 0.005, seed: 4, apiKey: 'sim-key-account-2' });
    const work = await writeApplyWorkspace(`acct-${backend}`, {
      name: 'acct',
      subjects: ['fox', 'owl'],
      styles: ['ink'],
    });
    try {
      const place = await states.place(`${work.dir}/state`, 'acct');
      const args = [...work.apply, ...place.args];
      const paid = await runCli(args, { env: { ...simulatorEnv(first), ...place.env }, timeoutMs: 60_000 });
      expect(paid.code, paid.stderr).toBe(0);

      const other = await runCli(args, { env: { ...simulatorEnv(second), ...place.env }, timeoutMs: 60_000 });
      expect(other.code, other.stderr).toBe(2);
      expect(other.stderr).toMatch(/pays from another account \(account [0-9a-f]{16},/);
      expect(other.stderr).toMatch(/this apply's API key is of account [0-9a-f]{16}\./);
      expect(other.stderr).not.toContain('sim-key-account');
      expect(second.stats().jobsCreated).toBe(0);
      expect(second.stats().requests['POST /agents/jobs/create'] ?? 0).toBe(0);

      const again = await runCli(args, { env: { ...simulatorEnv(first), ...place.env }, timeoutMs: 60_000 });
      expect(again.code, again.stderr).toBe(0);
      expect(first.stats().jobsCreated).toBe(2);
    } finally {
      await first.close();
      await second.close();
      await rm(work.dir, { recursive: true, force: true });
    }
  }, 120_000);
});
