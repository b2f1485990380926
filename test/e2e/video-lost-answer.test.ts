import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, makeWorkDir, readStatus, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';
import { runCliKilledWhen } from './run-cli-killable.js';
import { readOtherRunsJobs } from '../../src/state/backends/folder/other-runs-jobs.js';

const TIME_SCALE = 0.005;

/**
 * Video endpoints document no idempotency key, so a create whose answer was lost cannot be re-sent
 * safely. These runs kill apply the moment the service accepts the create, then apply again.
 */
describe('a video create whose answer was lost (built binary)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it('is never paid twice by a plain re-run, and is re-sent only with --resend-uncertain', async () => {
    const sim = (simulator = await startSimulator({ timeScale: TIME_SCALE }));
    const dir = await makeWorkDir('video-lost');
    const file = join(dir, 'pipeline.yaml');
    await writeFile(
      file,
      `version: 1
name: video-lost
jobs:
  - id: teaser
    kind: voiceover-video
    model: voiceover-standard
    prompt: A short teaser about autumn drinks at the corner cafe
    params: { script: "Autumn is here.", sceneCount: 2 }
`,
    );
    const env = simulatorEnv(sim);
    const stateDir = join(dir, 'state');
    const apply = ['apply', file, '--state-dir', stateDir, ...FAST_YES];

    const killed = await runCliKilledWhen(apply, () => sim.stats().jobsCreated >= 1, { env });
    expect(killed.killed).toBe(true);
    expect(sim.stats().jobsCreated).toBe(1);

    const again = await runCli(apply, { env });
    const status = await readStatus(file, stateDir, env);
    const teaser = status.jobs.find((job) => job.id === 'teaser');
    if (teaser?.status === 'uncertain') {
      // The kill came before the job id was journaled: reported, exit 1, and nothing re-sent.
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(
        /uncertain\s+teaser: .*a paid job may exist; the service offers no job listing .*\(skipped\)/,
      );
      expect(sim.stats().jobsCreated).toBe(1);
      const resend = await runCli([...apply, '--resend-uncertain'], { env });
      expect(resend.code).toBe(0);
      expect(sim.stats().jobsCreated).toBe(2);
    } else {
      // The job id was journaled before the kill: the re-run follows that same job to the end.
      expect(again.code).toBe(0);
      expect(teaser?.status).toBe('done');
      expect(sim.stats().jobsCreated).toBe(1);
    }
  });

  it.each([
    ['in step with ours', 0],
    ['10 min behind ours (#24.8)', -600_000],
  ])(
    'finds the lost job through the recent-jobs listing, the service clock %s (#11.9)',
    async (_, clockOffsetMs) => {
      const sim = (simulator = await startSimulator({
        timeScale: TIME_SCALE,
        jobListing: true,
        clockOffsetMs,
      }));
      const dir = await makeWorkDir('video-lost-listed');
      const file = join(dir, 'pipeline.yaml');
      await writeFile(
        file,
        `version: 1
name: video-lost-listed
jobs:
  - id: teaser
    kind: voiceover-video
    model: voiceover-standard
    prompt: A short teaser about winter drinks at the corner cafe
    params: { script: "Winter is here.", sceneCount: 2 }
`,
      );
      const env = simulatorEnv(sim);
      const stateDir = join(dir, 'state');
      const apply = ['apply', file, '--state-dir', stateDir, ...FAST_YES];
      const killed = await runCliKilledWhen(apply, () => sim.stats().jobsCreated >= 1, { env });
      expect(killed.killed).toBe(true);

      // Whether or not the job id was journaled before the kill, the re-run ends with that one job.
      const again = await runCli(apply, { env });
      expect(again.code).toBe(0);
      expect(sim.stats().jobsCreated).toBe(1);
      const status = await readStatus(file, stateDir, env);
      expect(status.jobs[0]).toMatchObject({
        id: 'teaser',
        status: 'done',
        jobId: sim.stats().jobs[0]?.jobId,
      });
    },
  );

  it('never adopts the job of another run of the same pipeline (#24.8)', async () => {
    const sim = (simulator = await startSimulator({ timeScale: TIME_SCALE, jobListing: true }));
    const dir = await makeWorkDir('video-lost-runs');
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
    const env = simulatorEnv(sim);
    const stateDir = join(dir, 'state');
    const run = (id: string) => ['apply', file, '--run', id, '--state-dir', stateDir, ...FAST_YES];
    // Run r2 makes and holds its job; run r1 is killed the moment the service accepts its own create.
    const r2 = await runCli(run('r2'), { env });
    expect(r2.code, r2.stderr).toBe(0);
    const held = await readOtherRunsJobs({
      manifestFile: file,
      pipeline: 'video-lost-runs',
      stateDir,
      runId: 'r1',
    });
    expect([...held.jobIds]).toEqual([sim.stats().jobs[0]?.jobId]);
    const killed = await runCliKilledWhen(run('r1'), () => sim.stats().jobsCreated >= 2, { env });
    expect(killed.killed).toBe(true);
    // Both jobs are listed with the same payload: r1 follows its own, never r2's, and pays nothing more.
    const again = await runCli(run('r1'), { env });
    expect(again.code, again.stderr).toBe(0);
    expect(sim.stats().jobsCreated).toBe(2);
    const status = await runCli(['status', file, '--run', 'r1', '--state-dir', stateDir, '--json'], { env });
    const view = JSON.parse(status.stdout) as { jobs: { id: string; status: string; jobId?: string }[] };
    expect(view.jobs[0]).toMatchObject({ status: 'done', jobId: sim.stats().jobs[1]?.jobId });
  });
});
