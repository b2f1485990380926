import { rm } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import { createRandom } from '../../src/simulator/random.js';
import type { StatusView } from '../../src/state/status-view.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { simulatorEnv, writeApplyWorkspace } from './apply-fixtures.js';
import { runCli, startCli, type KillableCli } from './run-cli.js';

/** 45 s simulated image jobs take 0.4 s real. */
const TIME_SCALE = 0.009;
const IMAGE_COST = 4;
/** The account's open jobs at once (spec 8; the simulator's default). */
const ACCOUNT_CONCURRENCY = 4;
/** Short enough that a killed machine's claims pass on within the test, long enough for a loaded CI machine. */
const LEASE_TTL_MS = 2_000;
const TRIALS = 2;
const KILLS_PER_TRIAL = 3;

/**
 * The shared-state soak of issue #31 at a size CI can afford (the was 10 trials and 26 kills):
 * per trial, three machines apply one PostgreSQL run under 500s, 429s and resets; a machine is killed
 * with SIGKILL at a seeded point (after the service has made a seeded number of jobs; the simulator's seeded PRNG) and a fresh
 * machine, on a folder of its own, takes its place; the run is then finished as a user would, by applying
 * it again. Whatever the kills and faults, no intended job is created (or paid) twice, the account never
 * has more open jobs than it allows, and every job ends done.
 */
describe.runIf(pgAvailable())('the shared-state soak: machines killed and replaced under faults', () => {
  const cluster = usePgCluster();

  it.each(Array.from({ length: TRIALS }, (_, trial) => trial))(
    'trial %i: 0 double pays, peak open ≤ 4, every job done',
    async (trial) => {
      const random = createRandom(1_000 + trial);
      const simulator = await startSimulator({
        timeScale: TIME_SCALE,
        seed: 90 + trial,
        idempotencyWindowMs: Math.ceil(300_000 / TIME_SCALE),
        account: { subscriptionImageQuota: 0 },
        faults: { serverError: 0.05, rateLimit: 0.05, reset: 0.02, retryAfterSeconds: 1 },
      });
      const url = await cluster().createDatabase();
      const env = {
        ...simulatorEnv(simulator),
        RUNNER_STATE_URL: url,
        RUNNER_LEASE_TTL_MS: String(LEASE_TTL_MS),
      };
      const workspaces: { dir: string }[] = [];
      const fresh = async (name: string) => {
        const workspace = await writeApplyWorkspace(`soak-${trial}-${name}`, {
          name: 'soak',
          subjects: SUBJECTS,
          styles: STYLES,
        });
        workspaces.push(workspace);
        const cli = startCli([...workspace.apply, '--run', 'night'], {
          env: { ...env, RUNNER_MACHINE: name },
          timeoutMs: 120_000,
        });
        const machine = { name, workspace, cli, ended: false };
        void cli.result.then(() => (machine.ended = true));
        return machine;
      };
      try {
        const jobCount = SUBJECTS.length * STYLES.length;
        const running: Machine[] = await Promise.all(['a', 'b', 'c'].map((name) => fresh(name)));
        // Seeded kill points: after 2..jobCount-2 jobs made, each later than the one before.
        const points = Array.from(
          { length: KILLS_PER_TRIAL },
          () => 2 + Math.floor(random() * (jobCount - 4)),
        ).sort((x, y) => x - y);
        let killed = 0;
        for (const [index, point] of points.entries()) {
          const reached = await waitUntil(() => simulator.stats().jobsCreated >= point, running);
          if (!reached) break; // every machine ended: the run is done (or stopped), nothing left to kill
          const alive = running.filter((one) => !one.ended);
          const victim = alive[Math.floor(random() * alive.length)];
          if (victim === undefined) break;
          victim.cli.kill();
          killed++;
          running.push(await fresh(`fresh${index + 1}`));
        }
        await Promise.all(running.map((one) => one.cli.result));

        // Finish the run as a user would: apply again (a machine that exhausted its retries stopped).
        const last = running.at(-1);
        if (last === undefined) throw new Error('no machine');
        let finished = await runCli([...last.workspace.apply, '--run', 'night'], {
          env: { ...env, RUNNER_MACHINE: last.name },
          timeoutMs: 120_000,
        });
        for (let tries = 0; tries < 3 && finished.code !== 0; tries++) {
          finished = await runCli([...last.workspace.apply, '--run', 'night'], {
            env: { ...env, RUNNER_MACHINE: last.name },
            timeoutMs: 120_000,
          });
        }
        expect(finished.code, finished.stderr).toBe(0);

        const stats = simulator.stats();
        const keys = stats.jobs.map((job) => job.idempotencyKey);
        // 0 double pays: one job made and charged per intended job, each under its own key.
        expect(stats.jobsCreated).toBe(jobCount);
        expect(new Set(keys).size).toBe(jobCount);
        expect(stats.creditsCharged).toBe(jobCount * IMAGE_COST);
        expect(stats.maxOpenAtOnce).toBeLessThanOrEqual(ACCOUNT_CONCURRENCY);
        expect(killed, 'the kills happened').toBeGreaterThan(0);
        expect(
          stats.faultsInjected.serverError + stats.faultsInjected.rateLimit + stats.faultsInjected.reset,
        ).toBeGreaterThan(0);
        const status = await runCli(['status', last.workspace.file, '--run', 'night', '--json'], {
          env: { ...env, RUNNER_MACHINE: last.name },
        });
        expect(status.code, status.stderr).toBe(0);
        const view = JSON.parse(status.stdout) as StatusView;
        expect(view.jobs.map((job) => job.status)).toEqual(view.jobs.map(() => 'done'));
        expect(view.jobs).toHaveLength(jobCount);
      } finally {
        await simulator.close();
        for (const one of workspaces) await rm(one.dir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});

interface Machine {
  name: string;
  workspace: { dir: string; file: string; apply: string[] };
  cli: KillableCli;
  ended: boolean;
}

const SUBJECTS = ['fox', 'owl', 'bear', 'heron'];
const STYLES = ['watercolor', 'pencil', 'oil'];

/** Waits until `condition` holds (true), or until every machine has ended (false). */
async function waitUntil(condition: () => boolean, running: { ended: boolean }[]): Promise<boolean> {
  const until = Date.now() + 90_000;
  while (!condition()) {
    if (running.every((one) => one.ended)) return false;
    if (Date.now() > until) throw new Error('timed out waiting for creates');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}
