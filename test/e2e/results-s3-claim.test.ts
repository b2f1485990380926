import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { useS3Server } from '../s3-server.js';
import { makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * #31.3 for a bucket (found playing "a machine killed mid-run"): the team's run `n1` (its state in
 * PostgreSQL) wrote to `s3://results/nightly`; a teammate applied the same pipeline and run id with a
 * folder state and the same `--output`. Nothing stopped it: it created a job the team's run had already
 * paid for, and put its own results.json (1 result of 25) and report.html over the team's. A bucket
 * prefix now holds the claim of the run writing there, as an output folder does. Two state folders on
 * one machine stand for the two states here (PostgreSQL's is the same rule: `output-claim.ts`).
 */
const s3 = useS3Server();

describe('a bucket prefix claimed by the run that writes there', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it(
    'refuses a run of the same id with another state (exit 2, nothing paid, the index kept) and resumes its own',
    { timeout: 120_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-claim');
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir) };
      const { file } = await writeImageMatrixManifest(dir, {
        name: 'claimed',
        subjects: ['fox', 'owl'],
        styles: ['ink'],
      });
      const output = `s3://${s3().bucket}/claimed`;
      const fast = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];
      const apply = (state: string, more: string[] = []) =>
        runCli(
          [
            'apply',
            file,
            '--run',
            'n1',
            '--state-dir',
            join(dir, state),
            '--output',
            output,
            ...fast,
            ...more,
          ],
          {
            env,
          },
        );

      const team = await apply('team-state');
      expect(team.code, team.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(2);
      const index = await s3().readObject('claimed/results.json');

      const other = await apply('my-state');
      expect(other.code, other.stderr).toBe(2);
      expect(other.stderr).toContain(`The output ${output} cannot be used by this run`);
      expect(other.stderr).toContain(join(dir, 'team-state'));
      expect(other.stderr).toContain('Nothing was created or paid.');
      expect(simulator.stats().jobsCreated).toBe(2);
      expect((await s3().readObject('claimed/results.json')).equals(index)).toBe(true);

      // The run's own state (a resume, a second machine of the run) writes there as before.
      const again = await apply('team-state', ['--replace', 'img-fox-ink']);
      expect(again.code, again.stderr).toBe(0);
      expect(simulator.stats().jobsCreated).toBe(3);
      // So does a copy of it in another folder (a CI cache restored into another runner's workspace on
      // the same host, the first one still there): the same history, the same run.
      await cp(join(dir, 'team-state'), join(dir, 'copied-state'), { recursive: true });
      const copied = await apply('copied-state', ['--replace', 'img-owl-ink']);
      expect(copied.code, copied.stderr).toBe(0);
      expect(copied.stderr).toContain("a copy of this run's state (the same history)");
      expect(simulator.stats().jobsCreated).toBe(4);
    },
  );

  it(
    "keeps `runner report` of another state from putting its page over the run's (exit 2)",
    { timeout: 120_000 },
    async () => {
      simulator = await startSimulator({ timeScale: 0.005 });
      const dir = await makeWorkDir('results-s3-claim-report');
      const env = { ...simulatorEnv(simulator), ...s3().cliEnv(dir) };
      const { file } = await writeImageMatrixManifest(dir, {
        name: 'paged',
        subjects: ['fox', 'owl'],
        styles: ['ink'],
      });
      const output = `s3://${s3().bucket}/paged`;
      const fast = ['--poll-interval', '15-25', '--first-poll', '50', '--yes'];
      const where = (state: string) => ['--run', 'n1', '--state-dir', join(dir, state)];
      // A state that wrote there first (before claims, or before its claim was deleted as the
      // refusal's hint says), then the run that holds the prefix now.
      const old = await runCli(
        ['apply', file, ...where('old-state'), '--output', output, '--only', 'img-fox-ink', ...fast],
        { env },
      );
      expect(old.code, old.stderr).toBe(0);
      await s3().deleteObject('paged/.runner-run.json');
      const team = await runCli(['apply', file, ...where('team-state'), '--output', output, ...fast], {
        env,
      });
      expect(team.code, team.stderr).toBe(0);
      const page = await s3().readObject('paged/report.html');

      const report = await runCli(['report', file, ...where('old-state')], { env });
      expect(report.code, report.stderr).toBe(2);
      expect(report.stderr).toContain(`The output ${output} cannot be used by this run`);
      expect((await s3().readObject('paged/report.html')).equals(page)).toBe(true);
      // The run's own state writes its page there, and any state may copy the page out (--out).
      const own = await runCli(['report', file, ...where('team-state')], { env });
      expect(own.code, own.stderr).toBe(0);
      const copy = await runCli(['report', file, ...where('old-state'), '--out', join(dir, 'review/')], {
        env,
      });
      expect(copy.code, copy.stderr).toBe(0);
    },
  );
});
