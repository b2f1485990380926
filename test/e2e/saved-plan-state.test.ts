import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const TIME_SCALE = 0.005;

interface SavedShape {
  schemaVersion: number;
  runId: string;
  state: { dir?: string };
  inputs: { maxCredits?: number };
  jobs: { toRun: boolean }[];
}

/**
 * Issue #20.2: a saved plan made against a run's state (`plan --run R --state-dir S --out-plan p`)
 * says "0 to run"; `runner apply p --yes`, as its own message says, must apply it against that same
 * state and create nothing, and refuse (exit 2, nothing created) when the state it reads would make it
 * create jobs the plan did not, or when apply's options contradict the plan's.
 */
describe('a saved plan carries the run, the state and the options that decided it (built CLI)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let file: string;
  let jobIds: string[];
  let stateDir: string;
  const created = () => simulator.stats().jobsCreated;

  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      idempotencyWindowMs: 300_000 / TIME_SCALE,
      account: { subscriptionImageQuota: 0 },
    });
    env = simulatorEnv(simulator);
    dir = await makeWorkDir('saved-plan-state');
    ({ file, jobIds } = await writeImageMatrixManifest(dir, {
      name: 'saved-state',
      subjects: ['fox', 'owl'],
      styles: ['ink', 'oil'],
    }));
    stateDir = join(dir, 'cache-state');
    const first = await runCli(
      [
        'apply',
        file,
        '--run',
        'night1',
        '--state-dir',
        stateDir,
        '--output',
        join(dir, 'out'),
        '--yes',
        ...FAST,
      ],
      { env },
    );
    expect(first.code, first.stderr).toBe(0);
    expect(created()).toBe(jobIds.length);
  });
  afterAll(() => simulator.close());

  it('applies a "0 to run" plan against the state it was made with: nothing is created again', async () => {
    const planFile = join(dir, 'p.json');
    const planned = await runCli(
      [
        'plan',
        file,
        '--run',
        'night1',
        '--state-dir',
        stateDir,
        '--max-credits',
        '100',
        '--out-plan',
        planFile,
      ],
      { env },
    );
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toMatch(/0 to run|to run: 0|0 jobs to run/i);
    const before = created();
    const applied = await runCli(['apply', planFile, '--yes', ...FAST], { env, cwd: dir });
    expect(applied.stderr).toContain('0 of 4 jobs to run');
    expect(applied.code, applied.stderr).toBe(0);
    expect(created()).toBe(before);

    const saved = JSON.parse(await readFile(planFile, 'utf8')) as SavedShape;
    // An absolute --state-dir is kept as given; a relative one is stored relative to the plan's folder.
    expect(saved).toMatchObject({ schemaVersion: 2, runId: 'night1', state: { dir: stateDir } });
    expect(saved.inputs.maxCredits).toBe(100);
    expect(saved.jobs.every((job) => !job.toRun)).toBe(true);

    // Relative folders are stored relative to the plan, so the plan applies from any working folder.
    const relative = await runCli(
      ['plan', file, '--run', 'night1', '--state-dir', 'cache-state', '--out-plan', 'plans/p.json'],
      { env, cwd: dir },
    );
    expect(relative.code, relative.stderr).toBe(0);
    const relativePlan = JSON.parse(await readFile(join(dir, 'plans', 'p.json'), 'utf8')) as SavedShape;
    expect(relativePlan.state).toEqual({ dir: '../cache-state' });
    const fromElsewhere = await runCli(['apply', join(dir, 'plans', 'p.json'), '--yes', ...FAST], { env });
    expect(fromElsewhere.code, fromElsewhere.stderr).toBe(0);
    expect(created()).toBe(before);
  });

  it('refuses options that contradict the plan, naming each, with nothing created', async () => {
    const planFile = join(dir, 'p-contradicted.json');
    const planned = await runCli(
      ['plan', file, '--run', 'night1', '--state-dir', stateDir, '--out-plan', planFile],
      { env },
    );
    expect(planned.code, planned.stderr).toBe(0);
    const before = created();
    const refused = await runCli(
      [
        'apply',
        planFile,
        '--yes',
        '--state-dir',
        join(dir, 'other-state'),
        '--max-credits',
        '5',
        '--retry-failed',
        ...FAST,
      ],
      { env },
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('options given to apply contradict the saved plan');
    expect(refused.stderr).toContain(`the plan was made against the state in ${stateDir}`);
    expect(refused.stderr).toContain('--max-credits 5: the plan was made with no --max-credits');
    expect(refused.stderr).toContain('--retry-failed: the plan was made without it');
    expect(refused.stderr).toContain('No job was created.');
    // An environment default counts as given: RUNNER_STATE_DIR naming another state is refused too.
    const fromEnv = await runCli(['apply', planFile, '--yes', ...FAST], {
      env: { ...env, RUNNER_STATE_DIR: join(dir, 'other-state') },
    });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('--state-dir (or RUNNER_STATE_DIR)');
    // The same values as the plan's are no contradiction.
    const same = await runCli(
      ['apply', planFile, '--yes', '--state-dir', stateDir, '--run', 'night1', ...FAST],
      {
        env,
      },
    );
    expect(same.code, same.stderr).toBe(0);
    expect(created()).toBe(before);
  });

  it("keeps the RUNNER_OUTPUT it was made with; apply's own is not read", async () => {
    const planFile = join(dir, 'p-output.json');
    const planned = await runCli(
      ['plan', file, '--run', 'night1', '--state-dir', stateDir, '--out-plan', planFile],
      { env: { ...env, RUNNER_OUTPUT: join(dir, 'root-a') } },
    );
    expect(planned.code, planned.stderr).toBe(0);
    const saved = JSON.parse(await readFile(planFile, 'utf8')) as { outputRoot?: string };
    expect(saved.outputRoot).toBe(join(dir, 'root-a'));
    const applied = await runCli(['apply', planFile, '--yes', ...FAST], {
      env: { ...env, RUNNER_OUTPUT: join(dir, 'root-b') },
    });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stderr).toContain(
      `RUNNER_OUTPUT is not read: the saved plan fixes the download folder (made with ${join(dir, 'root-a')})`,
    );
    expect(applied.stdout + applied.stderr).not.toContain('root-b');
  });

  it('refuses a plan gone stale (its state was lost since): exit 2, "stale", nothing created', async () => {
    const planFile = join(dir, 'p-stale.json');
    const planned = await runCli(
      ['plan', file, '--run', 'night1', '--state-dir', stateDir, '--out-plan', planFile],
      { env },
    );
    expect(planned.code, planned.stderr).toBe(0);
    // The CI cache was not restored: the run's state is gone, so every job would be created again.
    const runDir = join(stateDir, 'saved-state', 'night1');
    await rename(runDir, `${runDir}.away`);
    try {
      const before = created();
      const stale = await runCli(['apply', planFile, '--yes', ...FAST], { env });
      expect(stale.code).toBe(2);
      expect(stale.stderr).toContain('the saved plan is stale');
      expect(stale.stderr).toContain('It creates 0 of 4 jobs');
      expect(stale.stderr).toMatch(/img-fox-ink: done in the plan, new now/);
      expect(stale.stderr).toContain('No job was created.');
      expect(created()).toBe(before);
    } finally {
      // The refused apply left only a journal header there (as any refused apply does).
      await rm(runDir, { recursive: true, force: true });
      await rename(`${runDir}.away`, runDir);
    }
  });

  it('refuses a saved plan of version 1 and says why', async () => {
    const planFile = join(dir, 'p-v1.json');
    const planned = await runCli(
      ['plan', file, '--run', 'night1', '--state-dir', stateDir, '--out-plan', planFile],
      {
        env,
      },
    );
    expect(planned.code, planned.stderr).toBe(0);
    const saved = JSON.parse(await readFile(planFile, 'utf8')) as Record<string, unknown>;
    await writeFile(planFile, JSON.stringify({ ...saved, schemaVersion: 1, state: undefined }));
    const before = created();
    const refused = await runCli(['apply', planFile, '--yes', ...FAST], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('saved plan version 1, made by an earlier runner');
    expect(created()).toBe(before);
    const validate = await runCli(['validate', planFile], { env });
    expect(validate.code).toBe(2);
    expect(validate.stderr).toContain('is a saved plan');
    expect(validate.stderr).toContain(`runner validate ${file}`);
  });
});
