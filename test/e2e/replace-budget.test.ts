import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, makeWorkDir, readStatus, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const TIME_SCALE = 0.005;

/** Six subscription images (no credits) and two 20-credit videos: the "clip-mai"/"clip-nam". */
const MANIFEST = `version: 1
name: replace-budget
jobs:
  - id: 'img-{{ n }}'
    kind: image
    model: chatgpt-image-sangtao
    matrix:
      n: [a, b, c, d, e, f]
    prompt: A watercolor advertisement of a latte number {{ n }} on a wooden table
  - id: 'clip-{{ voice }}'
    kind: voiceover-video
    model: voiceover-standard
    matrix:
      voice: [mai, nam]
    prompt: A warm story about the first cup of the day
    params:
      script: 'Every morning starts with a cup.'
      voice: '{{ voice }}'
      sceneCount: 2
`;

/** Issue #20.4: plan and apply reach one verdict with `--replace`, counting what replaced jobs cost. */
describe('--replace under a credit cap (built binary)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  it('plan and apply both refuse when the replaced jobs already spent part of the cap; nothing is created', async () => {
    const sim = (simulator = await startSimulator({ timeScale: TIME_SCALE }));
    const dir = await makeWorkDir('replace-budget');
    const file = join(dir, 'pipeline.yaml');
    await writeFile(file, MANIFEST);
    const env = simulatorEnv(sim);
    const where = ['--state-dir', join(dir, 'state')];
    const first = await runCli(['apply', file, ...where, '--output', join(dir, 'out'), ...FAST_YES], { env });
    expect(first.code, first.stderr).toBe(0);
    expect(sim.stats().creditsCharged).toBe(40);

    const replace = ['--replace', 'clip-mai', '--replace', 'clip-nam', '--max-credits', '50'];
    const plan = await runCli(['plan', file, ...where, ...replace, '--format', 'json'], { env });
    expect(plan.code, plan.stderr).toBe(3);
    const report = JSON.parse(plan.stdout) as {
      verdict: { status: string; overBudgetBy?: number };
      credits: { alreadySpent: number; needed: number };
    };
    expect(report.credits).toMatchObject({ alreadySpent: 40, needed: 40 });
    expect(report.verdict).toMatchObject({ status: 'over-budget', overBudgetBy: 30 });

    const apply = await runCli(
      ['apply', file, ...where, '--output', join(dir, 'out'), ...replace, ...FAST_YES],
      {
        env,
      },
    );
    expect(apply.code, apply.stderr).toBe(3);
    expect(apply.stderr).toMatch(/40 already spent/);
    expect(apply.stderr).not.toMatch(/attempt 2/);
    expect(sim.stats().jobsCreated).toBe(8);
    const status = await readStatus(file, join(dir, 'state'), env);
    expect(status.jobs.every((job) => job.status === 'done')).toBe(true);
  });
});
