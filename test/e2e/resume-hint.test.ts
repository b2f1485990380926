import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { binPath, cliEnv, runCli, startCli } from './run-cli.js';

/** Image jobs of ~45 simulated seconds take ~0.2 s; the run is interrupted right after its first create. */
const TIME_SCALE = 0.005;
const FAST = ['--poll-interval', '20-40', '--first-poll', '30', '--concurrency', '1', '--yes'];

/** Runs a hint's command line (`runner apply …`, shell-quoted) through sh, with `runner` the built CLI. */
async function runHint(hint: string, cwd: string, env: Record<string, string>) {
  const script = `runner() { "${process.execPath}" "${binPath}" "$@"; }; ${hint}`;
  try {
    const { stdout, stderr } = await promisify(execFile)('sh', ['-c', script], {
      cwd,
      env: cliEnv({ CI: 'true', ...env }),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * Issue #20.3: after an interrupted `apply --run night1 --state-dir S --output O`, the hint said
 * "Run `runner apply m.yaml --run night1` again … nothing is paid twice"; doing exactly that read the
 * default state and created the finished jobs again. Every hint must carry the flags that locate the
 * run, shell-quoted, so following it creates only the jobs that are left.
 */
describe('following the resume hint after an interrupt pays for nothing twice (built CLI)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let file: string;
  let jobIds: string[];

  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      idempotencyWindowMs: 300_000 / TIME_SCALE,
      account: { subscriptionImageQuota: 0 },
    });
    env = simulatorEnv(simulator);
    dir = await makeWorkDir('resume-hint');
    ({ file, jobIds } = await writeImageMatrixManifest(dir, {
      name: 'resume-hint',
      subjects: ['fox', 'owl'],
      styles: ['ink', 'oil'],
    }));
  });
  afterAll(() => simulator.close());

  it.each([
    ['SIGINT', 130, 'night1'],
    ['SIGTERM', 143, 'night2'],
  ] as const)(
    '%s, then the hint: exit %i, and the jobs finished are not created again',
    async (signal, code, run) => {
      const before = simulator.stats().jobsCreated;
      // A state folder whose name needs quoting, and the output somewhere else than the default.
      const stateDir = join(dir, 'cache state');
      const apply = startCli(
        ['apply', file, '--run', run, '--state-dir', stateDir, '--output', `out-${run}`, ...FAST],
        {
          env,
          cwd: dir,
        },
      );
      const watch = setInterval(() => {
        if (simulator.stats().jobsCreated > before) {
          clearInterval(watch);
          apply.interrupt(signal);
        }
      }, 1);
      const first = await apply.result;
      clearInterval(watch);
      expect(first.code, first.stderr).toBe(code);
      const createdFirst = simulator.stats().jobsCreated - before;
      expect(createdFirst).toBeLessThan(jobIds.length);

      const hint = /Run `(runner apply [^`]+)` again to continue/.exec(first.stdout)?.[1];
      expect(hint, first.stdout).toBeDefined();
      expect(hint).toContain(`--run ${run}`);
      expect(hint).toContain(`--state-dir '${stateDir}'`);
      expect(hint).toContain(`--output out-${run}`);

      // The hint as printed; only the test's fast polling is added (it locates nothing).
      const again = await runHint(`${hint ?? ''} ${FAST.join(' ')}`, dir, env);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toContain(`${jobIds.length - createdFirst} of ${jobIds.length} jobs to run`);
      // Every job exactly once in all: the finished ones were not created again.
      expect(simulator.stats().jobsCreated - before).toBe(jobIds.length);
    },
  );
});

/**
 * Issue #31.1 / #31.3: with the state in PostgreSQL (`--state URL`), the hint dropped it; followed word
 * for word it applied the run again from an empty `.runner/` and paid for the finished jobs twice. The
 * output folder's claim did not stop it: a claim naming a database was read as "holds no journal".
 */
describe.runIf(pgAvailable())('hints and claims of a run whose state is in PostgreSQL (built CLI)', () => {
  const cluster = usePgCluster();
  let simulator: Simulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      idempotencyWindowMs: 300_000 / TIME_SCALE,
      account: { subscriptionImageQuota: 0 },
    });
    env = simulatorEnv(simulator);
  });
  afterAll(() => simulator.close());

  it(
    'SIGINT, then the hint: it names --state, and the jobs finished are not created again',
    { timeout: 120_000 },
    async () => {
      const url = await cluster().createDatabase();
      const dir = await makeWorkDir('resume-hint-pg');
      const { file, jobIds } = await writeImageMatrixManifest(dir, {
        name: 'resume-hint',
        subjects: ['fox', 'owl'],
        styles: ['ink', 'oil'],
      });
      const before = simulator.stats().jobsCreated;
      const apply = startCli(['apply', file, '--run', 'n1', '--state', url, ...FAST], { env, cwd: dir });
      const watch = setInterval(() => {
        if (simulator.stats().jobsCreated > before) {
          clearInterval(watch);
          apply.interrupt('SIGINT');
        }
      }, 1);
      const first = await apply.result;
      clearInterval(watch);
      expect(first.code, first.stderr).toBe(130);
      const createdFirst = simulator.stats().jobsCreated - before;
      expect(createdFirst).toBeLessThan(jobIds.length);
      const hint = /Run `(runner apply [^`]+)` again to continue/.exec(first.stdout)?.[1];
      expect(hint, first.stdout).toContain(`--state ${url}`);

      const again = await runHint(`${hint ?? ''} ${FAST.join(' ')}`, dir, env);
      expect(again.code, again.stderr).toBe(0);
      expect(simulator.stats().jobsCreated - before).toBe(jobIds.length);
    },
  );

  it(
    'a run of the same id with its state in a folder is refused the folder of the database run (exit 2, nothing paid)',
    { timeout: 120_000 },
    async () => {
      const url = await cluster().createDatabase();
      const dir = await makeWorkDir('two-states');
      const { file } = await writeImageMatrixManifest(dir, {
        name: 'two-states',
        subjects: ['elk'],
        styles: ['ink'],
      });
      const team = await runCli(['apply', file, '--state', url, ...FAST], { env, cwd: dir });
      expect(team.code, team.stderr).toBe(0);
      const made = simulator.stats().jobsCreated;
      // The same pipeline and run id, the default output folder, the state in .runner/ beside the manifest.
      const local = await runCli(['apply', file, ...FAST], { env, cwd: dir });
      expect(local.code).toBe(2);
      expect(local.stderr).toContain(url);
      expect(local.stderr).toContain('Nothing was created or paid.');
      expect(simulator.stats().jobsCreated).toBe(made);
    },
  );
});
