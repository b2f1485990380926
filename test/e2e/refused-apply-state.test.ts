import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

describe('an apply refused before its first record leaves no run behind', () => {
  let simulator: Simulator;
  let dir: string;

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: 0.005 });
    dir = await makeWorkDir('refused');
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('over the cap: exit 3, no job, no run folder, and runs lists nothing', async () => {
    const { file } = await writeImageMatrixManifest(dir, {
      name: 'capped',
      subjects: ['fox', 'owl'],
      styles: ['ink'],
    });
    const stateDir = join(dir, 'state');
    const env = simulatorEnv(simulator);
    const refused = await runCli(
      ['apply', file, '--run', 'n1', '--state-dir', stateDir, '--max-credits', '1', ...FAST_YES],
      {
        env,
      },
    );
    expect(refused.code, refused.stderr).toBe(3);
    expect(simulator.stats().jobsCreated).toBe(0);
    // The state root may stay (it holds the upload cache); no pipeline or run folder does.
    expect((await readdir(stateDir).catch(() => [])).filter((name) => name !== 'uploads.json')).toEqual([]);

    // A run that ran keeps its state; a refused apply of another run beside it leaves nothing.
    const applied = await runCli(['apply', file, '--run', 'n1', '--state-dir', stateDir, ...FAST_YES], {
      env,
    });
    expect(applied.code, applied.stderr).toBe(0);
    const other = await runCli(
      ['apply', file, '--run', 'n2', '--state-dir', stateDir, '--max-credits', '1', ...FAST_YES],
      {
        env,
      },
    );
    expect(other.code, other.stderr).toBe(3);
    const runs = await runCli(['runs', file, '--state-dir', stateDir, '--json'], { env });
    expect((JSON.parse(runs.stdout) as { runs: { runId: string }[] }).runs.map((run) => run.runId)).toEqual([
      'n1',
    ]);
  });
});
