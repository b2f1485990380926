import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { StatusView } from '../../src/state/status-view.js';
import { pgAvailable, usePgCluster, withPgClient } from '../pg-cluster.js';
import { startProxy } from '../pg-proxy.js';
import { simulatorEnv, writeApplyWorkspace } from './apply-fixtures.js';
import { waitForLeasesToExpire } from './lease-expiry.js';
import { runCli, startCli, type CliResult } from './run-cli.js';

/** 45 s simulated image jobs take 0.4 s real. */
const TIME_SCALE = 0.009;
const IMAGE_COST = 4;
/**
 * A live process's lease: the default, which a loaded machine keeps. With 1 s a live apply (or a push)
 * on a loaded machine went a second without a renewal and stopped, by design, and the case failed on a
 * refusal it did not test.
 */
const LIVE_LEASE_TTL_MS = 30_000;
/**
 * The lease of a process the test kills, pauses or cuts off: short, so the test waits it out, yet
 * long enough that a loaded machine keeps it until then. The test waits for it to run out in the
 * database (`waitForLeasesToExpire`), never for a guessed time.
 */
const DYING_LEASE_TTL_MS = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `runner apply --state postgres://…`: the run's state outlives its machine (its whole work folder),
 * a lease keeps two processes from creating, and a paused process that lost its lease creates nothing
 * more. Every case counts creates per intended job on the simulator: exactly one each.
 */
describe.runIf(pgAvailable())('apply with its state in PostgreSQL', () => {
  const cluster = usePgCluster();

  async function setUp(name: string, seed: number) {
    const simulator = await startSimulator({
      timeScale: TIME_SCALE,
      seed,
      idempotencyWindowMs: Math.ceil(300_000 / TIME_SCALE),
      account: { subscriptionImageQuota: 0 },
    });
    const url = await cluster().createDatabase();
    const env = {
      ...simulatorEnv(simulator),
      RUNNER_STATE_URL: url,
      RUNNER_LEASE_TTL_MS: String(LIVE_LEASE_TTL_MS),
    };
    /** The environment of a process the test kills, pauses or cuts off. */
    const dyingEnv = { ...env, RUNNER_LEASE_TTL_MS: String(DYING_LEASE_TTL_MS) };
    return { simulator, url, env, dyingEnv, name };
  }

  /** A fresh work folder (a new machine): manifest, output and upload cache, nothing else. */
  function machine(name: string) {
    return writeApplyWorkspace(`pg-${name}`, {
      name,
      subjects: ['fox', 'owl', 'bear'],
      styles: ['watercolor', 'pencil'],
    });
  }

  async function status(file: string, env: Record<string, string>, run = 'default'): Promise<StatusView> {
    const result = await runCli(['status', file, '--run', run, '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as StatusView;
  }

  /**
   * Runs apply until it exits 0, waiting out a lease still held by a dead process (until it has run
   * out in the database at `url`), as a user would.
   */
  async function applyUntilDone(
    args: string[],
    env: Record<string, string>,
    url: string,
  ): Promise<CliResult[]> {
    const results: CliResult[] = [];
    for (let tries = 0; tries < 10; tries++) {
      const result = await runCli(args, { env, timeoutMs: 60_000 });
      results.push(result);
      if (result.code === 0) return results;
      expect(result.stderr).toMatch(/holds the lease/);
      await waitForLeasesToExpire(url);
    }
    throw new Error(results.map((result) => result.stderr).join('\n---\n'));
  }

  function expectOncePerJob(simulator: Simulator, jobIds: string[]): void {
    const stats = simulator.stats();
    expect(stats.jobsCreated).toBe(jobIds.length);
    expect(stats.creditsCharged).toBe(jobIds.length * IMAGE_COST);
    expect(new Set(stats.jobs.map((job) => job.idempotencyKey)).size).toBe(jobIds.length);
  }

  it('a password in --state is refused (exit 2) and never printed; --state with --state-dir is refused', async () => {
    const work = await machine('password');
    const withPassword = `postgres://postgres:s3cret-pw@127.0.0.1:${cluster().port}/runner`;
    for (const command of [['status'], ['runs'], ['apply', '--yes']]) {
      const result = await runCli(
        [command[0] ?? '', work.file, ...command.slice(1), '--state', withPassword],
        {
          env: { MEDIAGEN_API_KEY: 'k' },
        },
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/carries a password/);
      expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
    }
    const viaEnv = await runCli(['status', work.file], { env: { RUNNER_STATE_URL: withPassword } });
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.stdout + viaEnv.stderr).not.toContain('s3cret-pw');
    const both = await runCli(['status', work.file, '--state', cluster().url, '--state-dir', work.dir]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--state and --state-dir/);
    await rm(work.dir, { recursive: true, force: true });
  });

  it('the machine dies (kill -9 mid-run, its folder deleted): a fresh folder on the same database pays nothing twice', async () => {
    const { simulator, env, dyingEnv, url } = await setUp('crash', 7);
    try {
      const first = await machine('crash');
      const cli = startCli(first.apply, { env: dyingEnv, timeoutMs: 60_000 });
      // Killed once some jobs exist and before all do.
      await waitForCreates(simulator, 2);
      cli.kill();
      const killed = await cli.result;
      expect(killed.signal).toBe('SIGKILL');
      await rm(first.dir, { recursive: true, force: true });

      const second = await machine('crash');
      const results = await applyUntilDone(second.apply, env, url);
      expect(results.at(-1)?.stderr).toMatch(/Took over the expired lease/);
      const view = await status(second.file, env);
      expect(view.jobs.map((job) => job.status)).toEqual(second.jobIds.map(() => 'done'));
      for (const job of view.jobs) {
        expect(job.files.length, job.id).toBeGreaterThanOrEqual(1);
        for (const download of job.files) expect(download.file.startsWith(second.dir)).toBe(true);
      }
      expectOncePerJob(simulator, second.jobIds);
      // Applying again creates nothing.
      const again = await runCli(second.apply, { env, timeoutMs: 60_000 });
      expect(again.code, again.stderr).toBe(0);
      expectOncePerJob(simulator, second.jobIds);
      await rm(second.dir, { recursive: true, force: true });
    } finally {
      await simulator.close();
    }
  }, 120_000);

  it('two nights are two runs in the database: runs lists both, each resumes on its own', async () => {
    const { simulator, env } = await setUp('nights', 3);
    try {
      const work = await machine('nights');
      for (const night of ['night-1', 'night-2']) {
        // Each run writes a download folder of its own.
        const args = withOutput(work.apply, join(work.dir, night));
        const result = await runCli([...args, '--run', night], { env, timeoutMs: 60_000 });
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain(`State: postgres://postgres@127.0.0.1:${cluster().port}/`);
      }
      expect(simulator.stats().jobsCreated).toBe(2 * work.jobIds.length);
      const runs = await runCli(['runs', work.file, '--json'], { env });
      expect(runs.code, runs.stderr).toBe(0);
      const view = JSON.parse(runs.stdout) as { runs: { runId: string; counts: { done: number } }[] };
      expect(view.runs.map((run) => [run.runId, run.counts.done])).toEqual([
        ['night-1', work.jobIds.length],
        ['night-2', work.jobIds.length],
      ]);
      const again = await runCli([...withOutput(work.apply, join(work.dir, 'night-1')), '--run', 'night-1'], {
        env,
        timeoutMs: 60_000,
      });
      expect(again.code, again.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(2 * work.jobIds.length);
      await rm(work.dir, { recursive: true, force: true });
    } finally {
      await simulator.close();
    }
  }, 120_000);

  it('a second apply while the first runs joins it instead of being refused (#17.4): each job paid once', async () => {
    const { simulator, env } = await setUp('lock', 5);
    try {
      const work = await machine('lock');
      const other = await machine('lock');
      const first = startCli(work.apply, { env, timeoutMs: 60_000 });
      await waitForCreates(simulator, 1);
      const second = await runCli(other.apply, { env, timeoutMs: 60_000 });
      expect(second.code, second.stderr).toBe(0);
      expect((await first.result).code).toBe(0);
      expectOncePerJob(simulator, work.jobIds);
      await rm(work.dir, { recursive: true, force: true });
      await rm(other.dir, { recursive: true, force: true });
    } finally {
      await simulator.close();
    }
  }, 120_000);

  it('a process paused (SIGSTOP) past its lease creates nothing more once resumed, and says why', async () => {
    const { simulator, env, dyingEnv, url } = await setUp('paused', 9);
    try {
      const work = await machine('paused');
      const paused = startCli([...work.apply, '--concurrency', '1'], { env: dyingEnv, timeoutMs: 60_000 });
      await waitForCreates(simulator, 1);
      process.kill(paused.pid ?? 0, 'SIGSTOP');
      const createdWhenPaused = simulator.stats().jobsCreated;
      // Stopped, it cannot renew: its lease runs out in the database, however slowly we get there.
      await waitForLeasesToExpire(url);
      const other = await machine('paused');
      const taker = await runCli(other.apply, { env, timeoutMs: 60_000 });
      expect(taker.code, taker.stderr).toBe(0);
      expect(taker.stderr).toMatch(/Took over the expired lease/);
      expectOncePerJob(simulator, work.jobIds);
      process.kill(paused.pid ?? 0, 'SIGCONT');
      const resumed = await paused.result;
      expect(resumed.code).not.toBe(0);
      expect(resumed.stdout + resumed.stderr).toMatch(/lease/);
      expect(createdWhenPaused).toBeLessThan(work.jobIds.length);
      expectOncePerJob(simulator, work.jobIds);
      await rm(work.dir, { recursive: true, force: true });
      await rm(other.dir, { recursive: true, force: true });
    } finally {
      await simulator.close();
    }
  }, 120_000);

  it('state push moves a folder run into the database (apply there creates nothing again), pull brings it back; lease shows and breaks', async () => {
    const { simulator, env, url } = await setUp('moved', 4);
    try {
      const work = await machine('moved');
      const stateDir = join(work.dir, 'state');
      const { RUNNER_STATE_URL: _unused, ...folderEnv } = env;
      const local = await runCli([...work.apply, '--state-dir', stateDir], {
        env: folderEnv,
        timeoutMs: 60_000,
      });
      expect(local.code, local.stderr).toBe(0);
      expectOncePerJob(simulator, work.jobIds);

      const push = await runCli(['state', 'push', work.file, '--state-dir', stateDir, '--state', url], {
        env,
      });
      expect(push.code, push.stderr).toBe(0);
      expect(push.stdout).toMatch(/Pushed run "default" of pipeline "moved": \d+ records/);
      const again = await runCli(['state', 'push', work.file, '--state-dir', stateDir, '--state', url], {
        env,
      });
      expect(again.code).toBe(1);
      // The folder's copy is marked moved (#31.11): refused, with the command that brings it back.
      expect(again.stderr).toMatch(/moved from .* to postgres:\/\/[^ ]+ at /);
      expect(again.stderr).toMatch(/runner state pull /);

      // The download folder names the state it belongs to (the folder's): the moved run gets a new one.
      const applied = await runCli(withOutput(work.apply, join(work.dir, 'out-db')), {
        env,
        timeoutMs: 60_000,
      });
      expect(applied.code, applied.stderr).toBe(0);
      expectOncePerJob(simulator, work.jobIds);
      const fromDb = await status(work.file, env);

      const pulledDir = join(work.dir, 'pulled');
      const pull = await runCli(['state', 'pull', work.file, '--state-dir', pulledDir, '--state', url], {
        env,
      });
      expect(pull.code, pull.stderr).toBe(0);
      const fromFolder = await runCli(['status', work.file, '--state-dir', pulledDir, '--json'], {
        env: folderEnv,
      });
      expect(fromFolder.code, fromFolder.stderr).toBe(0);
      // The same view, but for the machine of each job, which only the database records.
      for (const job of fromDb.jobs) expect(job.machine).toMatch(/ pid \d+$/);
      expect(JSON.parse(fromFolder.stdout)).toEqual({
        ...fromDb,
        jobs: fromDb.jobs.map(({ machine: _machine, ...job }) => job),
      });

      const lease = await runCli(['state', 'lease', work.file, '--json'], { env });
      expect(lease.code, lease.stderr).toBe(0);
      expect(JSON.parse(lease.stdout).lease).toMatchObject({ live: false, released: true });

      // A live holder whose lease is broken stops before its next create; the next apply follows on.
      const heldApply = withOutput(work.apply, join(work.dir, 'held'));
      const held = startCli([...heldApply, '--run', 'held', '--concurrency', '1'], {
        env: { ...env, RUNNER_LEASE_TTL_MS: '60000' },
        timeoutMs: 60_000,
      });
      await waitForCreates(simulator, work.jobIds.length + 1);
      const broken = await runCli(['state', 'lease', work.file, '--run', 'held', '--break'], { env });
      expect(broken.code, broken.stderr).toBe(0);
      expect(broken.stdout).toMatch(/Lease on run "held" of pipeline "moved": held; holder .* pid \d+/);
      expect(broken.stdout).toMatch(/Broke the lease/);
      const stopped = await held.result;
      expect(stopped.code).not.toBe(0);
      const resumed = await runCli([...heldApply, '--run', 'held'], { env, timeoutMs: 60_000 });
      expect(resumed.code, resumed.stderr).toBe(0);
      expectOncePerJob(simulator, [...work.jobIds, ...work.jobIds]);
      await rm(work.dir, { recursive: true, force: true });
    } finally {
      await simulator.close();
    }
  }, 120_000);

  it.each(['cut', 'paused', 'restarted'] as const)(
    'the database connection is %s mid-run: no create without its record, and the next apply finishes paying once',
    async (fault) => {
      const { simulator, url } = await setUp(`db-${fault}`, 12);
      const proxy = await startProxy(cluster().port);
      const viaProxy = url.replace(`:${cluster().port}/`, `:${proxy.port}/`);
      try {
        const work = await machine(`db-${fault}`);
        const env = {
          ...simulatorEnv(simulator),
          RUNNER_STATE_URL: viaProxy,
          RUNNER_LEASE_TTL_MS: String(DYING_LEASE_TTL_MS),
        };
        const cli = startCli([...work.apply, '--concurrency', '2'], { env, timeoutMs: 60_000 });
        await waitForCreates(simulator, 2);
        if (fault === 'cut') proxy.cut();
        else if (fault === 'restarted') await cluster().restart();
        else {
          // Paused longer than the lease lasts (and shorter than a statement may take, twice the lease).
          proxy.pause();
          await sleep(DYING_LEASE_TTL_MS * 1.5);
          proxy.resume();
        }
        const first = await cli.result;
        expect(first.signal).toBeNull();
        // Every job the service has, its intent (with the key) is in the database.
        const keys = await readIntentKeys(url);
        for (const job of simulator.stats().jobs) expect(keys.has(job.idempotencyKey ?? '')).toBe(true);
        if (first.code !== 0) expect(first.stdout + first.stderr).toMatch(/state database|lease/);
        // The applies that finish the run live through it: the default lease.
        await applyUntilDone(work.apply, { ...env, RUNNER_LEASE_TTL_MS: String(LIVE_LEASE_TTL_MS) }, url);
        expectOncePerJob(simulator, work.jobIds);
        await rm(work.dir, { recursive: true, force: true });
      } finally {
        await proxy.close();
        await simulator.close();
      }
    },
    120_000,
  );
});

async function readIntentKeys(url: string): Promise<Set<string>> {
  return withPgClient(url, async (client) => {
    const { rows } = await client.query<{ key: string }>(
      "SELECT record::json->>'idempotencyKey' AS key FROM runner_records WHERE record::json->>'type' = 'intent'",
    );
    return new Set(rows.map((row) => row.key));
  });
}

/** `apply` arguments with another `--output` folder. */
function withOutput(apply: readonly string[], output: string): string[] {
  const at = apply.indexOf('--output');
  return apply.map((arg, index) => (index === at + 1 ? output : arg));
}

/** Waits until the simulator has made `count` jobs (at most 30 s: a run that stopped fails the test). */
async function waitForCreates(simulator: Simulator, count: number): Promise<void> {
  const until = Date.now() + 30_000;
  while (simulator.stats().jobsCreated < count) {
    if (Date.now() > until)
      throw new Error(`the simulator made ${simulator.stats().jobsCreated} jobs, not ${count}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
