import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Dialect, Simulator } from '../../src/simulator/types.js';
import { FAST_YES, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const TIME_SCALE = 0.005;

/** `count` stock videos of 8 credits each (stock-narrated: 8 × duration 1). */
function stockManifest(count: number): string {
  const ids = Array.from({ length: count }, (_, index) => `s${index}`).join(', ');
  return `version: 1
name: costs
jobs:
  - id: 'stock-{{ n }}'
    kind: stock-video
    model: stock-narrated
    matrix:
      n: [${ids}]
    prompt: Coffee beans and sunrise streets, take {{ n }}
    params:
      script: 'Three new roasts this week.'
      duration: 1
`;
}

/** Issue #24.2: prices the service sends that cannot be true are not believed. */
describe('impossible costs (built binary against the simulator)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  async function setup(dialect: Dialect, manifest: string) {
    const sim = (simulator = await startSimulator({ timeScale: TIME_SCALE, dialect }));
    const dir = await makeWorkDir('costs');
    const file = join(dir, 'pipeline.yaml');
    await writeFile(file, manifest);
    const state = ['--state-dir', join(dir, 'state'), '--output', join(dir, 'out')];
    return { sim, file, env: simulatorEnv(sim), state };
  }

  it('refuses a negative catalog price at validate, plan and apply (exit 2, naming the model and value)', async () => {
    const { sim, file, env, state } = await setup(
      { catalogCosts: { 'stock-narrated': -30 } },
      stockManifest(2),
    );
    const expected = /model "stock-narrated" has creditCost -30 in the catalog/;
    const validate = await runCli(['validate', file], { env });
    expect(validate.code, validate.stderr).toBe(2);
    expect(validate.stderr).toMatch(expected);
    expect(validate.stderr).toMatch(/pipeline\.yaml:\d+:\d+/);
    const plan = await runCli(['plan', file], { env });
    expect(plan.code, plan.stderr).toBe(2);
    expect(plan.stderr).toMatch(expected);
    expect(plan.stdout).not.toMatch(/-30|-60/);
    const apply = await runCli(['apply', file, ...state, ...FAST_YES], { env });
    expect(apply.code, apply.stderr).toBe(2);
    expect(apply.stderr).toMatch(expected);
    expect(sim.stats().jobsCreated).toBe(0);
  });

  it('counts a create answer reporting -1000 at its estimate, with a warning, never as negative spending', async () => {
    const { sim, file, env, state } = await setup({ reportedCost: -1000 }, stockManifest(2));
    const apply = await runCli(['apply', file, ...state, ...FAST_YES, '--json'], { env });
    expect(apply.code, apply.stderr).toBe(0);
    const summary = JSON.parse(apply.stdout) as { creditsSpent: number; creditsSpentTotal: number };
    expect(summary).toMatchObject({ creditsSpent: 16, creditsSpentTotal: 16 });
    expect(sim.stats().creditsCharged).toBe(16);
    expect(apply.stderr).toMatch(
      /reported creditCost -1000 for job stock-s0 .*counted at its estimate of 8 credits/,
    );
  });

  it('crosses a --max-credits cap by one job at most when the catalog says 0 and the service charges 8', async () => {
    const { sim, file, env, state } = await setup(
      { catalogCosts: { 'stock-narrated': 0 } },
      stockManifest(10),
    );
    // Before: the first wave of four creates each reserved 0 and was charged 8 (32 against a cap of 20).
    const apply = await runCli(['apply', file, ...state, ...FAST_YES, '--max-credits', '20'], { env });
    expect(apply.code, apply.stderr).toBe(3);
    expect(sim.stats().creditsCharged).toBeLessThanOrEqual(20 + 8);
    // Creating stopped at the cap, with most jobs left for later.
    expect(sim.stats().jobsCreated).toBeLessThan(10);
  });
});
