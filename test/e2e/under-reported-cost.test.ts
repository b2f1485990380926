import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Dialect, Simulator } from '../../src/simulator/types.js';
import {
  FAST_YES,
  IMAGE_MODEL,
  makeWorkDir,
  simulatorEnv,
  writeImageMatrixManifest,
} from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const TIME_SCALE = 0.005;
/** The simulator's starting balance: 200 free + 1,000 purchased credits. */
const START_BALANCE = 1200;
/** What the service charges an image job once the plan's images are used up (the catalog says 4 too). */
const IMAGE_COST = 4;

/**
 * Issue #32.1: create and poll answers say the job cost 0 (or 1e308) from credits while the account is
 * charged 4 a job. Before: "Credits spent: 0", plan then said a replacement fits, and a cap of 10
 * ended with 16 charged; a reported 1e308 printed "Credits spent: 1e+308" (2 of them: null in JSON).
 * The simulator's balance is the truth every figure is held to.
 */
describe('a cost the service reports below what it charges (built binary against the simulator)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  async function setup(dialect: Dialect) {
    // No plan images left: every image job is paid in credits (`chargeSource` Credit).
    const sim = (simulator = await startSimulator({
      timeScale: TIME_SCALE,
      dialect,
      account: { subscriptionImageQuota: 0 },
    }));
    const dir = await makeWorkDir('under-reported');
    const { file, jobIds } = await writeImageMatrixManifest(dir, {
      name: 'under',
      subjects: ['fox', 'owl'],
      styles: ['ink'],
    });
    const stateDir = ['--state-dir', join(dir, 'state')];
    const state = [...stateDir, '--output', join(dir, 'out')];
    /** What the account lost, read from the simulator's balance (all jobs ended: nothing locked). */
    const charged = () => {
      const account = sim.stats().account;
      if (account === undefined) throw new Error('the simulator reported no account');
      return START_BALANCE - (account.freeCredit + account.purchasedCredit - account.lockedCredit);
    };
    return { sim, file, jobIds, env: simulatorEnv(sim), state, stateDir, charged };
  }

  it('counts a reported 0 at the catalog price, so --max-credits 10 holds and plan tells the truth', async () => {
    const { file, jobIds, env, state, stateDir, charged } = await setup({ reportedCost: 0 });
    const apply = await runCli(['apply', file, ...state, ...FAST_YES, '--max-credits', '10', '--json'], {
      env,
    });
    expect(apply.code, apply.stderr).toBe(0);
    expect(charged()).toBe(2 * IMAGE_COST);
    const summary = JSON.parse(apply.stdout) as { creditsSpent: number; creditsSpentTotal: number };
    expect(summary).toMatchObject({ creditsSpent: charged(), creditsSpentTotal: charged() });
    expect(apply.stderr).toMatch(
      /reported creditCost 0 for job img-fox-ink .*charged to credits.*counted at its estimate of 4 credits/,
    );
    // Replacing one job needs 8 + 4 = 12 credits against a cap of 10: it does not fit.
    const [first, second] = jobIds as [string, string];
    const plan = await runCli(['plan', file, ...state, '--replace', first, '--max-credits', '10'], { env });
    expect(plan.code, plan.stdout + plan.stderr).toBe(3);
    const again = await runCli(
      ['apply', file, ...state, ...FAST_YES, '--replace', first, '--replace', second, '--max-credits', '10'],
      { env },
    );
    expect(again.code, again.stderr).toBe(3);
    expect(charged()).toBeLessThanOrEqual(12);
    const status = await runCli(['status', file, ...stateDir], { env });
    expect(status.stdout).toContain(`Credits spent: ${charged()}.`);
  }, 120_000);

  it('warns, naming both figures, when the balance fell by more than the run counted', async () => {
    // The catalog says 2 and answers say 0: counted at 2 a job, while the service charges 4.
    const { env, file, state, charged } = await setup({
      reportedCost: 0,
      catalogCosts: { [IMAGE_MODEL]: 2 },
    });
    const apply = await runCli(['apply', file, ...state, ...FAST_YES], { env });
    expect(apply.code, apply.stderr).toBe(0);
    expect(charged()).toBe(8);
    expect(apply.stdout).toContain('Credits spent: 4 by this apply');
    expect(apply.stderr).toMatch(
      /The available credit fell by 8 credits during this apply \(from 1,200 to 1,192\), more than the 4 credits it counted/,
    );
  }, 60_000);

  it('counts an absurd reported cost (1e308) at its estimate and prints plain figures', async () => {
    const { env, file, state, stateDir, charged } = await setup({ reportedCost: 1e308 });
    const json = await runCli(['apply', file, ...state, ...FAST_YES, '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const summary = JSON.parse(json.stdout) as { creditsSpent: unknown };
    expect(summary.creditsSpent).toBe(charged());
    expect(json.stderr).toMatch(
      /reported creditCost 1e\+?308 for job img-fox-ink .*counted at its estimate of 4 credits/,
    );
    const status = await runCli(['status', file, ...stateDir], { env });
    expect(status.stdout).toContain(`Credits spent: ${charged()}.`);
    expect(status.stdout + json.stderr).not.toMatch(/Infinity|e\+308\b.*spent|spent: 1e/);
  }, 60_000);
});
