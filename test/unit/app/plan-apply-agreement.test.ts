import { describe, expect, it } from 'vitest';
import { checkCost } from '../../../src/app/cost-check.js';
import type { ExecutionSummary } from '../../../src/execute/events.js';
import type { CostReport } from '../../../src/plan/cost-report.js';
import { withJobList } from '../../../src/plan/estimate-cost.js';
import { legacyPayloadHash } from '../../../src/catalog/payload-hash.js';
import type { Plan } from '../../../src/plan/types.js';
import { createExecutorHarness, makePlan, plannedJob } from '../execute/executor-harness.js';
import { useTempDir } from '../../temp-dir.js';

/**
 * Issue #7.3: `plan` and `apply` reach the same verdict from the same state and flags. Each case
 * builds a real state by running the executor, then puts the plan's cost check and a real execution
 * side by side: a plan that fits is never followed by an apply that stops at the budget, a plan over
 * the budget is one the executor would have stopped, and "to run" is what the executor creates.
 */

const tmp = useTempDir('runner-agree-');

/** Every job costs 1 credit, as the fake service charges. */
const job = (id: string, prompt = `a clear prompt for ${id}`) => plannedJob(id, prompt);

interface Flags {
  retryFailed?: boolean;
  maxCredits?: number;
  replace?: string[];
}

function createWorld() {
  const h = createExecutorHarness(tmp.path);
  const { service, clock, state } = h;
  const apply = (plan: Plan, flags: Flags = {}): Promise<ExecutionSummary> =>
    h.run(plan, {
      download: false,
      ...(flags.retryFailed === undefined ? {} : { retryFailed: flags.retryFailed }),
      ...(flags.maxCredits === undefined ? {} : { maxCredits: flags.maxCredits }),
      ...(flags.replace === undefined ? {} : { replace: flags.replace }),
    });
  const plan = async (input: Plan, flags: Flags = {}): Promise<CostReport> =>
    withJobList(
      await checkCost({
        plan: input,
        catalog: [],
        maxAttempts: 3,
        previousJobs: await state(),
        now: clock.now(),
        ...flags,
      }),
    );
  /** The plan's verdict, then the executor on the same state: they must agree. */
  const sideBySide = async (input: Plan, flags: Flags = {}) => {
    const report = await plan(input, flags);
    const createsBefore = service.creates.length;
    const summary = await apply(input, flags);
    const creates = service.creates.length - createsBefore;
    expect(report.verdict.status === 'fits').toBe(summary.stopReason !== 'budget');
    if (report.verdict.status === 'fits') expect(creates).toBe(report.jobs.toRun);
    return { report, summary, creates };
  };
  return { service, clock, apply, plan, sideBySide };
}

describe('plan and apply agree (issue #7.3)', () => {
  it("counts what --replace'd jobs already cost, as apply's budget does (#20.4)", async () => {
    const world = createWorld();
    const plan = makePlan([job('a'), job('b'), job('c'), job('d')]);
    await world.apply(plan);
    const roomy = await world.plan(plan, { replace: ['c', 'd'], maxCredits: 6 });
    expect(roomy.verdict.status).toBe('fits');
    const tight = await world.plan(plan, { replace: ['c', 'd'], maxCredits: 5 });
    expect(tight.credits).toMatchObject({ needed: 2, alreadySpent: 4 });
    expect(tight.verdict).toMatchObject({ status: 'over-budget', overBudgetBy: 1 });
    const refused = await world.sideBySide(plan, { replace: ['c', 'd'], maxCredits: 5 });
    expect(refused.summary.stopReason).toBe('budget');
  });

  it('counts the credits already spent by this run against the budget', async () => {
    const world = createWorld();
    await world.apply(makePlan([job('a'), job('b')]));
    const grown = [job('a'), job('b'), job('c'), job('d')];

    const tight = await world.plan(makePlan(grown, 3));
    expect(tight.credits).toMatchObject({ needed: 2, alreadySpent: 2 });
    expect(tight.verdict).toMatchObject({ status: 'over-budget', overBudgetBy: 1 });
    expect(tight.verdict.message).toContain('2 already spent');
    // Run anyway, the executor stops at the same budget: the plan's refusal was right.
    const refused = await world.sideBySide(makePlan(grown, 3));
    expect(refused.summary.stopReason).toBe('budget');

    const world2 = createWorld();
    await world2.apply(makePlan([job('a'), job('b')]));
    const fits = await world2.sideBySide(makePlan(grown, 4));
    expect(fits.report.verdict.status).toBe('fits');
    expect(fits.summary.exitReason).toBe('ok');
  });

  it('treats --max-credits like the budget, on plan as on apply', async () => {
    const world = createWorld();
    await world.apply(makePlan([job('a')]));
    const plan = makePlan([job('a'), job('b'), job('c')]);
    const over = await world.sideBySide(plan, { maxCredits: 2 });
    expect(over.report.verdict.status).toBe('over-budget');
    expect(over.report.maxCredits).toBe(2);
    const world2 = createWorld();
    await world2.apply(makePlan([job('a')]));
    const fits = await world2.sideBySide(plan, { maxCredits: 3 });
    expect(fits.report.verdict.status).toBe('fits');
  });

  it('does not count a deferred job as to run before its time, and does after it', async () => {
    const world = createWorld();
    const deferred = job('q', 'fail-once:QUOTA_EXHAUSTED then a clear prompt');
    expect((await world.apply(makePlan([deferred]))).counts.deferred).toBe(1);
    const plan = makePlan([deferred, job('e')], 1);

    const early = await world.sideBySide(plan);
    expect(early.report.jobs.byState).toMatchObject({ deferred: 1, new: 1 });
    expect(early.report.jobs.toRun).toBe(1);
    expect(early.report.verdict.status).toBe('fits');

    world.clock.advance(3 * 3600_000);
    const late = await world.sideBySide(makePlan([deferred, job('e')], 2));
    expect(late.report.jobs.toRun).toBe(1);
    expect(late.report.jobList.find((entry) => entry.id === 'q')).toMatchObject({
      state: 'failed',
      toRun: true,
    });
  });

  it('leaves permanently failed jobs out unless --retry-failed, on both', async () => {
    const world = createWorld();
    const failing = job('f', 'fail:PROMPT_UNCLEAR');
    expect((await world.apply(makePlan([failing]))).counts.failed).toBe(1);
    const plain = await world.sideBySide(makePlan([failing, job('g')], 1));
    expect(plain.report.jobs.toRun).toBe(1);
    expect(plain.report.verdict.status).toBe('fits');

    const retried = await world.sideBySide(makePlan([failing, job('h')], 2), { retryFailed: true });
    expect(retried.report.verdict.status).toBe('over-budget');
    expect(retried.summary.stopReason).toBe('budget');
  });
});

describe('plan and apply on a journal of releases up to 0.1.0 (legacy payload hashes)', () => {
  it('take a job done under its legacy hash as done: neither counts nor creates it again', async () => {
    const world = createWorld();
    const current = job('a');
    // What those releases journaled: the hash of what is sent, defaults folded in.
    const asJournaledThen = { ...current, payloadHash: legacyPayloadHash(current) };
    expect(asJournaledThen.payloadHash).not.toBe(current.payloadHash);
    await world.apply(makePlan([asJournaledThen]));

    const both = await world.sideBySide(makePlan([current, job('b')], 2));
    expect(both.report.jobList.find((entry) => entry.id === 'a')).toMatchObject({
      state: 'done',
      toRun: false,
    });
    expect(both.creates).toBe(1);
  });
});
