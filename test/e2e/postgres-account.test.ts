import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { pgAvailable, usePgCluster } from '../pg-cluster.js';
import { simulatorEnv, writeApplyWorkspace } from './apply-fixtures.js';
import { startCli, type CliResult } from './run-cli.js';

/** 45 s simulated image jobs take 0.4 s real. */
const TIME_SCALE = 0.009;
/** The account's open jobs at once (spec 8; the simulator's default). */
const ACCOUNT_CONCURRENCY = 4;
/** The `Retry-After` of the 429 the service gives mid-run (real seconds: the CLI is not scaled). */
const RETRY_AFTER_SECONDS = 5;
/**
 * Requests may arrive this early in a `Retry-After` window without breaking the pause: they were on
 * their way, or sent while the 429's notice travelled from the machine that met it through the
 * database (an INSERT, its NOTIFY, the other machines' delivery). Measured: the 429's answer reached
 * its machine up to 121 ms after the simulator sent it, the notice the others up to 134 ms later, and
 * requests arrived up to 289 ms into the window at load 15 on 2 cores; before the pause was shared,
 * the other machines polled their open jobs through the whole window.
 */
const IN_FLIGHT_MS = 1_000;

/**
 * Issue #31.5: the account's limits are the account's, not a run's. Runs of one account that share a
 * state database share its open-job slots (three runs held 12 open jobs on an account of 4), and a
 * 429's `Retry-After` pauses every machine of the account (three machines sent 17–47 requests inside
 * the window; one machine alone, none). The CLI talks to a simulator by base URL and key, so the key
 * names an account (`--simulate` has none).
 */
describe.runIf(pgAvailable())('one account on one PostgreSQL state: slots and 429 pauses', () => {
  const cluster = usePgCluster();

  async function setUp(seed: number, imageMs = 45_000) {
    const simulator = await startSimulator({
      timeScale: TIME_SCALE,
      seed,
      jobDurationMs: { image: imageMs },
      idempotencyWindowMs: Math.ceil(300_000 / TIME_SCALE),
      account: { subscriptionImageQuota: 0 },
    });
    const url = await cluster().createDatabase();
    return { simulator, url, env: { ...simulatorEnv(simulator), RUNNER_STATE_URL: url } };
  }

  function expectOncePerJob(simulator: Simulator, jobs: number): void {
    const stats = simulator.stats();
    expect(stats.jobsCreated).toBe(jobs);
    expect(new Set(stats.jobs.map((job) => job.idempotencyKey)).size).toBe(jobs);
  }

  it('three runs of one account (two of one pipeline, one of another) never hold more open jobs than the account allows', async () => {
    const { simulator, env } = await setUp(61);
    const runs = await Promise.all([
      writeApplyWorkspace('acct-r1', { name: 'posters', subjects: SUBJECTS, styles: STYLES }),
      writeApplyWorkspace('acct-r2', { name: 'posters', subjects: SUBJECTS, styles: STYLES }),
      writeApplyWorkspace('acct-r3', { name: 'banners', subjects: SUBJECTS, styles: STYLES }),
    ]);
    try {
      const results = await Promise.all(
        runs.map(
          (run, index) =>
            startCli([...run.apply, '--run', `r${index + 1}`], {
              env: { ...env, RUNNER_MACHINE: `m${index + 1}` },
              timeoutMs: 120_000,
            }).result,
        ),
      );
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      expectOncePerJob(simulator, 3 * SUBJECTS.length * STYLES.length);
      const { maxOpenAtOnce } = simulator.stats();
      console.log(`three runs of one account: peak open jobs on the service ${maxOpenAtOnce}`);
      expect(maxOpenAtOnce).toBeGreaterThan(1);
      expect(maxOpenAtOnce).toBeLessThanOrEqual(ACCOUNT_CONCURRENCY);
    } finally {
      await simulator.close();
      for (const run of runs) await rm(run.dir, { recursive: true, force: true });
    }
  }, 180_000);

  it("a 429's Retry-After pauses every machine of the account: none sends a request inside the window", async () => {
    // Jobs of 2.7 s: the machines poll the open ones all through the window unless they pause.
    const { simulator, env, url } = await setUp(62, 300_000);
    const subjects = ['fox', 'owl', 'bear', 'heron'];
    const styles = ['watercolor', 'pencil'];
    const machines = await Promise.all(
      ['a', 'b', 'c'].map(async (name) => ({
        name,
        ...(await writeApplyWorkspace(`acct-pause-${name}`, { name: 'paused', subjects, styles })),
      })),
    );
    try {
      const clis = machines.map((one) =>
        startCli([...one.apply, '--log-file', join(one.dir, 'apply.log')], {
          env: { ...env, RUNNER_MACHINE: one.name },
          timeoutMs: 120_000,
        }),
      );
      // Every machine has joined and jobs are open (each polls them) when the service says "wait".
      await waitForJoined(url, machines.length, clis);
      await waitFor(() => simulator.stats().jobsCreated >= ACCOUNT_CONCURRENCY, clis);
      simulator.rateLimitNext(1, RETRY_AFTER_SECONDS);
      const results = await Promise.all(clis.map((cli) => cli.result));
      for (const result of results) expect(result.code, result.stderr).toBe(0);
      expectOncePerJob(simulator, subjects.length * styles.length);
      const stats = simulator.stats();
      expect(stats.rateLimitedOnDemand).toBe(1);
      const late = stats.insideRetryAfterMs.filter((ms) => ms >= IN_FLIGHT_MS);
      console.log(
        `requests inside the ${RETRY_AFTER_SECONDS} s Retry-After window, all machines: ${stats.requestsInsideRetryAfter} (ms after the 429: ${stats.insideRetryAfterMs.join(', ')}); ${late.length} after ${IN_FLIGHT_MS} ms`,
      );
      expect(stats.requestsInsideRetryAfter).toBe(stats.insideRetryAfterMs.length);
      expect(late).toEqual([]);
      // Each machine that waited on another's 429 said so once, in its log (where a machine that met
      // the 429 itself logs its pause), naming the 429 and until when it waits.
      const logged = await Promise.all(
        machines.map(async (one) => {
          const events = (await readFile(join(one.dir, 'apply.log'), 'utf8'))
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => (JSON.parse(line) as { event?: { type?: string; reason?: string } }).event)
            .filter((event) => event !== undefined);
          const type = (wanted: string) => events.filter((event) => event.type === wanted);
          return { met: type('rate-limit-pause'), followed: type('rate-limit-followed') };
        }),
      );
      expect(logged.map((one) => one.met.length).sort()).toEqual([0, 0, 1]);
      for (const one of logged.filter((machine) => machine.met.length === 0)) {
        expect(one.followed).toHaveLength(1);
        expect(one.followed[0]?.reason).toMatch(
          /^another machine of this account met HTTP 429 \(too many requests\); every request waits until \d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC$/,
        );
      }
    } finally {
      await simulator.close();
      for (const one of machines) await rm(one.dir, { recursive: true, force: true });
    }
  }, 180_000);
});

const SUBJECTS = ['fox', 'owl', 'bear', 'heron', 'lynx'];
const STYLES = ['watercolor', 'pencil', 'oil'];

/** Waits until `condition` holds; fails with what the CLIs said if they all ended first. */
async function waitFor(
  condition: () => boolean | Promise<boolean>,
  clis: { result: Promise<CliResult> }[],
  timeoutMs = 60_000,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  let ended = 0;
  for (const cli of clis) void cli.result.then(() => ended++);
  while (!(await condition())) {
    if (Date.now() > until || ended === clis.length) {
      const said = await Promise.all(clis.map((cli) => cli.result));
      throw new Error(`timed out waiting: ${said.map((one) => one.stderr).join('\n---\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Waits until `count` applies have joined the run (their leases carry the plan's identity). */
async function waitForJoined(
  url: string,
  count: number,
  clis: { result: Promise<CliResult> }[],
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await waitFor(async () => {
      // The CLIs create the tables: none may exist yet.
      const present = await client.query<{ present: boolean }>(
        "SELECT to_regclass('runner_leases') IS NOT NULL AS present",
      );
      if (present.rows[0]?.present !== true) return false;
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM runner_leases WHERE plan_identity IS NOT NULL AND NOT released',
      );
      return (rows[0]?.n ?? 0) >= count;
    }, clis);
  } finally {
    await client.end();
  }
}
