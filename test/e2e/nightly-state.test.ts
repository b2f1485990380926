import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import type { RunsView } from '../../src/state/run-summary.js';
import type { StatusView } from '../../src/state/status-view.js';
import {
  FAST_YES,
  isRunIndexFile,
  listFilesDeep,
  makeWorkDir,
  simulatorEnv,
  writeImageMatrixManifest,
} from './apply-fixtures.js';
import { runCli } from './run-cli.js';
import { stateBackends, useStateBackend } from './state-backends.js';

const TIME_SCALE = 0.005;
const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

/**
 * The same nights on both backends (#17 quality bar): one `--state-dir` kept between nights (the CI
 * cache), or one PostgreSQL database.
 */
describe.each(stateBackends())('nightly runs with one persistent state (#7), state in %s', (backend) => {
  const states = useStateBackend(backend);
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'creates every job again on night two, nothing on a re-run of night one; runs and status tell them apart',
    { timeout: 180_000 },
    async () => {
      simulator = await startSimulator({
        timeScale: TIME_SCALE,
        idempotencyWindowMs: 300_000 / TIME_SCALE,
        // Paid in credits, so the runs show what they spent.
        account: { subscriptionImageQuota: 0 },
      });
      const dir = await makeWorkDir('nightly');
      const { file, jobIds } = await writeImageMatrixManifest(dir, {
        name: 'nightly',
        subjects: ['fox', 'owl', 'heron'],
        styles: ['ink'],
      });
      // The CI cache: one folder kept between nights (or the database).
      const stateDir = join(dir, 'ci-cache', 'runner-state');
      const place = await states.place(stateDir, 'nightly');
      const env = { ...simulatorEnv(simulator), ...place.env };
      const night = (runId: string) =>
        runCli(
          ['apply', file, '--run', runId, ...place.args, '--output', join(dir, 'out', runId), ...FAST_YES],
          {
            env,
          },
        );

      const first = await night('2026-11-22');
      expect(first.code, first.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(jobIds.length);

      const second = await night('2026-11-23');
      expect(second.code, second.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(2 * jobIds.length);

      const again = await night('2026-11-22');
      expect(again.code, again.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(2 * jobIds.length);

      const runs = await runCli(['runs', file, ...place.args, '--json'], { env });
      expect(runs.code, runs.stderr).toBe(0);
      const view = JSON.parse(runs.stdout) as RunsView;
      expect(view.schemaVersion).toBe(1);
      expect(view.runs.map((run) => [run.runId, run.applies, run.counts.jobs, run.counts.done])).toEqual([
        ['2026-11-22', 2, 3, 3],
        ['2026-11-23', 1, 3, 3],
      ]);
      // 3 jobs of `chatgpt-image-sangtao` at 4 credits each, per night; the re-run of night one paid nothing.
      expect(view.runs.map((run) => run.creditsSpent)).toEqual([12, 12]);
      const runsText = await runCli(['runs', file, ...place.args], { env });
      // The table lists the runs in order, one row each, led by the run id (the Started column is today's
      // date, so it is not asserted on).
      const rowLeaders = runsText.stdout
        .split('\n')
        .map((line) => line.split(/\s+/)[0])
        .filter((cell) => cell?.startsWith('2026-'));
      expect(rowLeaders).toEqual(['2026-11-22', '2026-11-23']);

      const status = await runCli(['status', file, '--run', '2026-11-23', ...place.args, '--json'], { env });
      expect((JSON.parse(status.stdout) as StatusView).totals).toMatchObject({ jobs: 3, done: 3 });

      // A night that never ran has no state: an error naming the runs that exist, not 3 pending jobs.
      const missing = await runCli(['status', file, '--run', '2026-11-24', ...place.args], { env });
      expect(missing.code).toBe(1);
      expect(missing.stdout).toBe('');
      expect(missing.stderr).toMatch(/Run "2026-11-24" of pipeline "nightly" has no state/);
      expect(missing.stderr).toMatch(/2026-11-22, 2026-11-23/);

      // Everything written is private to the user (#11.8).
      const written = await listFilesDeep(join(dir, 'out'));
      // Six results, and each night's report, results index and folder claim beside them.
      expect(written.filter((file) => !isRunIndexFile(file))).toHaveLength(6);
      // (Plus each result's thumbnail and each night's grid image in its thumbnails/.)
      expect(written.filter((file) => isRunIndexFile(file) && !/thumbnails[/\\]/.test(file))).toHaveLength(8);
      expect(written.filter((file) => /thumbnails[/\\]/.test(file))).toHaveLength(8);
      for (const file of written) expect(await modeOf(file), file).toBe(0o600);
      expect(await modeOf(join(dir, 'out', '2026-11-22'))).toBe(0o700);
      if (backend === 'folder') {
        for (const stateFile of await listFilesDeep(stateDir))
          expect(await modeOf(stateFile), stateFile).toBe(0o600);
        expect(await modeOf(join(stateDir, 'nightly', '2026-11-23'))).toBe(0o700);
      }
      const report = join(dir, 'plan.md');
      const plan = await runCli(['plan', file, '--format', 'markdown', '--out', report], { env });
      expect(plan.code, plan.stderr).toBe(0);
      expect(await modeOf(report)).toBe(0o600);
    },
  );
});
