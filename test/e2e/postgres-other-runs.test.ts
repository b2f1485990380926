import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { createPostgresStore } from '../../src/state/backends/postgres/postgres-store.js';
import { pgAvailable, usePgCluster, withPgClient } from '../pg-cluster.js';
import { FAST_YES, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { waitForLeasesToExpire } from './lease-expiry.js';
import { runCli } from './run-cli.js';
import { runCliKilledAfterStart, runCliKilledWhen } from './run-cli-killable.js';

/**
 * A live apply's lease: the default, which a loaded machine keeps (with 2 s one that went that long
 * without a renewal would stop, by design, on a refusal no case tests).
 */
const LIVE_LEASE_TTL_MS = 30_000;
/** The lease of an apply a case kills and then waits out: short, yet kept until the kill under load. */
const KILLED_LEASE_TTL_MS = 3_000;

/**
 * Issue 31.14 / 34.1: apply on PostgreSQL looks at the pipeline's other runs where they are, in the
 * database, never in an empty `.runner/` beside the manifest: the runs left unfinished it warns of, the
 * jobs a lost create must never adopt, the files of another run in an unclaimed output folder.
 */
describe.runIf(pgAvailable())(
  'apply on PostgreSQL reads the other runs through the store',
  { timeout: 120_000 },
  () => {
    const cluster = usePgCluster();
    let simulator: Simulator | undefined;
    afterEach(async () => {
      await simulator?.close();
      simulator = undefined;
    });

    async function setUp(options: Parameters<typeof startSimulator>[0]) {
      const sim = (simulator = await startSimulator(options));
      const url = await cluster().createDatabase();
      const env = {
        ...simulatorEnv(sim),
        RUNNER_STATE_URL: url,
        RUNNER_LEASE_TTL_MS: String(LIVE_LEASE_TTL_MS),
      };
      return { sim, url, env, killedEnv: { ...env, RUNNER_LEASE_TTL_MS: String(KILLED_LEASE_TTL_MS) } };
    }

    it('warns of a run left with paid jobs open (killed), from the database', async () => {
      // The service's clock stands still while k1 runs, so none of its jobs can end before the kill
      // however slowly a loaded machine runs k1 (at load 12 one did: "3 paid jobs still open").
      let frozenAt: number | undefined = Date.now();
      const { sim, env } = await setUp({
        timeScale: 0.005,
        jobDurationMs: { image: 400_000 },
        clock: { now: () => frozenAt ?? Date.now() },
      });
      const dir = await makeWorkDir('pg-unfinished');
      const { file } = await writeImageMatrixManifest(dir, {
        name: 'crashy',
        subjects: ['fox', 'owl', 'heron', 'lynx'],
        styles: ['ink', 'oil'],
      });
      const killed = await runCliKilledAfterStart(
        ['apply', file, '--run', 'k1', '--output', join(dir, 'out-k1'), ...FAST_YES],
        300,
        () => sim.stats().jobsCreated >= 4,
        { env, cwd: dir },
      );
      expect(killed.killed, killed.stderr).toBe(true);
      frozenAt = undefined;
      const k2 = await runCli(['apply', file, '--run', 'k2', '--only', 'img-fox-ink', ...FAST_YES], {
        env,
        cwd: dir,
      });
      expect(k2.code, k2.stderr).toBe(0);
      expect(k2.stderr).toMatch(/run "k1" has 4 paid jobs still open/);
    });

    it('never adopts the job of another run of the same pipeline (#24.8)', async () => {
      const { sim, url, env, killedEnv } = await setUp({ timeScale: 0.005, jobListing: true });
      const dir = await makeWorkDir('pg-video-lost-runs');
      const file = join(dir, 'pipeline.yaml');
      await writeFile(
        file,
        `version: 1
name: video-lost-runs
jobs:
  - id: teaser
    kind: voiceover-video
    model: voiceover-standard
    prompt: A short teaser about spring drinks at the corner cafe
    params: { script: "Spring is here.", sceneCount: 2 }
`,
      );
      const run = (id: string) => ['apply', file, '--run', id, ...FAST_YES];
      const r2 = await runCli(run('r2'), { env });
      expect(r2.code, r2.stderr).toBe(0);
      const held = await createPostgresStore(url).otherRunsJobs({
        manifestFile: file,
        pipeline: 'video-lost-runs',
        runId: 'r1',
      });
      expect([...held.jobIds]).toEqual([sim.stats().jobs[0]?.jobId]);
      const killed = await runCliKilledWhen(run('r1'), () => sim.stats().jobsCreated >= 2, {
        env: killedEnv,
      });
      expect(killed.killed).toBe(true);
      // r1's lease was left by a killed process: waited out (until it ran out in the database), as a
      // user would.
      let again = await runCli(run('r1'), { env });
      for (let tries = 0; again.code !== 0 && /holds the lease/.test(again.stderr) && tries < 10; tries++) {
        await waitForLeasesToExpire(url);
        again = await runCli(run('r1'), { env });
      }
      expect(again.code, again.stderr).toBe(0);
      expect(sim.stats().jobsCreated).toBe(2);
      const status = await runCli(['status', file, '--run', 'r1', '--json'], { env });
      const view = JSON.parse(status.stdout) as { jobs: { id: string; status: string; jobId?: string }[] };
      expect(view.jobs[0]).toMatchObject({ status: 'done', jobId: sim.stats().jobs[1]?.jobId });
    });

    it('refuses an unclaimed folder where another run in the database saved its files', async () => {
      const { sim, url, env } = await setUp({ timeScale: 0.005 });
      const dir = await makeWorkDir('pg-legacy-output');
      const { file } = await writeImageMatrixManifest(dir, {
        name: 'legacy',
        subjects: ['elk'],
        styles: ['ink'],
      });
      const old = await runCli(['apply', file, '--run', 'old', '--output', 'shared', ...FAST_YES], {
        env,
        cwd: dir,
      });
      expect(old.code, old.stderr).toBe(0);
      // As an earlier release left it: no claim file, no folder in the run record, no snapshot.
      await rm(join(dir, 'shared', '.runner-run.json'));
      await withPgClient(url, async (client) => {
        await client.query(
          `UPDATE runner_records SET record = regexp_replace(record, ',"outputDir":"[^"]*"', '', 'g')`,
        );
        // An earlier release recorded each download by its absolute path, not by its key (#30.1).
        await client.query(
          `UPDATE runner_records SET record = regexp_replace(record, '"file":"([^"/]+)"', $1, 'g')`,
          [`"file":${JSON.stringify(join(dir, 'shared')).slice(0, -1)}/\\1"`],
        );
        await client.query('DELETE FROM runner_snapshots');
      });
      const before = await readFile(join(dir, 'shared', 'img-elk-ink.png'));
      const made = sim.stats().jobsCreated;
      const next = await runCli(['apply', file, '--run', 'new', '--output', 'shared', ...FAST_YES], {
        env,
        cwd: dir,
      });
      expect(next.code).toBe(2);
      expect(next.stderr).toMatch(/holds files recorded by run "old"/);
      expect(sim.stats().jobsCreated).toBe(made);
      expect(await readFile(join(dir, 'shared', 'img-elk-ink.png'))).toEqual(before);
    });
  },
);
