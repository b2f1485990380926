import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { FAST, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';
import { runCliKilledAfterStart } from './run-cli-killable.js';
import { waitForLeasesToExpire } from './lease-expiry.js';

/**
 * Found playing "a machine killed mid-run" (#31.1 for `runner runs`): after a SIGKILL of an apply with
 * `--state postgres://…`, `runner runs --state URL` named the run's open jobs with a command that
 * finishes them, without `--state`. Followed word for word on a second machine it planned the run from
 * an empty `.runner/`: the open jobs were new there, and only its `--max-credits 0` stopped it, with a
 * hint to raise it (which would have paid for them again). The command now repeats `--state`.
 */
describe.runIf(pgAvailable())('the finishing command `runs` gives for a run in PostgreSQL', () => {
  const cluster = usePgCluster();
  let simulator: Simulator;

  beforeAll(async () => {
    // Jobs of ~2 s: still open when the apply is killed right after its second create.
    simulator = await startSimulator({ timeScale: 0.005, jobDurationMs: { image: 400_000 } });
  });
  afterAll(() => simulator.close());

  it('names --state, and following it on another machine finishes the open jobs, creating nothing', async () => {
    const url = await cluster().createDatabase();
    const first = await makeWorkDir('runs-hint-pg-a');
    const second = await makeWorkDir('runs-hint-pg-b');
    // The machine killed holds a short lease, to be waited out; the live ones keep the default (30 s),
    // which a loaded machine renews in time.
    const env = simulatorEnv(simulator);
    const killedEnv = { ...env, RUNNER_LEASE_TTL_MS: '3000' };
    const name = { name: 'runs-hint', subjects: ['fox', 'owl'], styles: ['ink'] };
    const { file } = await writeImageMatrixManifest(first, name);
    await writeImageMatrixManifest(second, name);
    const creates = () => simulator.stats().jobsCreated;

    const output = join(first, 'out');
    const killed = await runCliKilledAfterStart(
      ['apply', file, '--run', 'n1', '--state', url, '--output', output, '--yes', ...FAST],
      300,
      () => creates() >= 2,
      { env: killedEnv, cwd: first },
    );
    expect(killed.killed, killed.stderr).toBe(true);
    expect(creates()).toBe(2);

    const runs = await runCli(['runs', 'runs-hint.yaml', '--state', url], { env, cwd: second });
    expect(runs.code, runs.stderr).toBe(0);
    const hint = /Finish it with: (runner apply .*?) \(follows them/.exec(runs.stderr)?.[1];
    expect(hint, runs.stderr).toContain(`--state ${url}`);

    // The killed machine's lease runs out before another machine may join its run (until then it is
    // taken for alive, as it would be on a real team).
    await waitForLeasesToExpire(url);
    const finish = await runCli([...(hint ?? '').split(' ').slice(1), ...FAST], { env, cwd: second });
    expect(finish.code, finish.stderr).toBe(0);
    expect(creates()).toBe(2);
  });
});
