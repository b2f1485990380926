import { describe, expect, it } from 'vitest';
import type { CostReport } from '../../../src/plan/cost-report.js';
import {
  buildSavedPlan,
  compareDecisions,
  compareSavedPlan,
  isSavedPlan,
  replacementsStillDue,
  sha256,
} from '../../../src/plan/saved-plan.js';
import type { Plan } from '../../../src/plan/types.js';
import type { PlannedJob } from '../../../src/manifest/planned-job.js';
import type { Model } from '../../../src/service/types.js';

const job = (id: string, prompt: string, credits = 4): PlannedJob => ({
  id,
  kind: 'image',
  model: 'img',
  prompt,
  params: { n: 1 },
  estimatedCredits: credits,
  payloadHash: sha256(prompt),
  source: { matrixValues: {}, specIndex: 0, origins: { job: [], model: [], params: {} } },
});
const plan = (jobs: PlannedJob[]): Plan => ({ pipeline: 'p', manifestFile: 'm.yaml', jobs, warnings: [] });
const model = (creditCost: number, max = 4): Model => ({
  slug: 'img',
  displayName: 'Image',
  category: 'image',
  creditCost,
  config: { n: { type: 'number', label: 'N', min: 1, max } },
});
const report = {
  credits: { total: 8, toRun: 4, needed: 4 },
  jobList: [
    { id: 'a', state: 'done', toRun: false },
    { id: 'b', state: 'new', toRun: true },
  ],
} as unknown as CostReport;

const saved = buildSavedPlan({
  plan: plan([job('a', 'x'), job('b', 'y')]),
  report,
  catalog: [model(4), { ...model(9), slug: 'unused' }],
  manifest: { file: 'm.yaml', path: 'm.yaml', sha256: 'aaa' },
  runId: 'r',
  date: '2026-11-21',
  state: { dir: 'state' },
  inputs: {
    targeting: { only: [], exclude: [], replace: [] },
    vars: {},
    maxCredits: 50,
    retryFailed: false,
    resendUncertain: false,
  },
  now: new Date('2026-11-21T10:00:00Z'),
});

describe('saved plans (#10.1)', () => {
  it('holds the jobs with payloads and hashes, and fingerprints only the models used', () => {
    expect(isSavedPlan(JSON.parse(JSON.stringify(saved)))).toBe(true);
    expect(saved.schemaVersion).toBe(2);
    // Version 1 recorded neither the state nor the options that decided it: not applicable.
    expect(isSavedPlan({ ...saved, schemaVersion: 1 })).toBe(false);
    expect(isSavedPlan({ kind: 'runner-plan', schemaVersion: 3, state: {}, jobs: [] })).toBe(false);
    expect(isSavedPlan({ kind: 'runner-plan', schemaVersion: 2, jobs: [] })).toBe(false);
    expect(Object.keys(saved.models)).toEqual(['img']);
    expect(saved.jobs[0]).toMatchObject({ id: 'a', prompt: 'x', params: { n: 1 }, payloadHash: sha256('x') });
    expect(saved.credits.needed).toBe(4);
  });

  it("records where it was made, the options that decided it and each job's decision", () => {
    expect(saved.state).toEqual({ dir: 'state' });
    expect(saved.inputs).toMatchObject({ maxCredits: 50, retryFailed: false, resendUncertain: false });
    expect(saved.jobs.map(({ id, state, toRun }) => ({ id, state, toRun }))).toEqual([
      { id: 'a', state: 'done', toRun: false },
      { id: 'b', state: 'new', toRun: true },
    ]);
  });

  it('finds nothing changed when the same plan is made again', () => {
    const now = { manifestSha256: 'aaa', plan: plan([job('a', 'x'), job('b', 'y')]), catalog: [model(4)] };
    expect(compareSavedPlan(saved, now)).toEqual([]);
  });

  it('lists every change: manifest, price, config, payload, removed and new jobs', () => {
    const changes = compareSavedPlan(saved, {
      manifestSha256: 'bbb',
      plan: plan([job('a', 'x2'), job('c', 'z')]),
      catalog: [model(5, 8)],
    });
    expect(changes).toEqual([
      'the manifest m.yaml changed (sha256 aaa → bbb)',
      "model img's price changed: creditCost 4 → 5",
      "model img's config (its input form, defaults or bounds) changed",
      "job a's payload changed (an env var, a var file or a reference file it uses)",
      'job b is no longer in the plan',
      'job c is new in the plan',
    ]);
  });
});

describe('replacementsStillDue', () => {
  it('replaces a job only while its attempts are as many as when the plan was made', () => {
    const withReplace = {
      ...saved,
      inputs: {
        ...saved.inputs,
        targeting: { only: [], exclude: [], replace: ['a', 'b'] },
        replaceAfterAttempts: { a: 1, b: 1 },
      },
    };
    const attempts: Record<string, number> = { a: 1, b: 2 };
    expect(replacementsStillDue(withReplace, (id) => attempts[id] ?? 0)).toEqual(['a']);
  });
});

describe('compareDecisions (#20.2)', () => {
  it('finds nothing stale when apply would do what the plan said', () => {
    const now = [
      { id: 'a', state: 'done', toRun: false },
      { id: 'b', state: 'new', toRun: true },
    ] as const;
    expect(compareDecisions(saved, now)).toEqual({ stale: [], settled: [] });
  });

  it('calls stale every job apply would create that the plan did not (another or an older state)', () => {
    const now = [
      { id: 'a', state: 'new', toRun: true },
      { id: 'b', state: 'new', toRun: true },
    ] as const;
    expect(compareDecisions(saved, now)).toEqual({
      stale: [{ id: 'a', planned: 'done', now: 'new' }],
      settled: [],
    });
  });

  it('lets a job the plan would create be done since (an earlier apply of the same plan)', () => {
    const now = [
      { id: 'a', state: 'done', toRun: false },
      { id: 'b', state: 'done', toRun: false },
    ] as const;
    expect(compareDecisions(saved, now)).toEqual({ stale: [], settled: ['b'] });
  });
});
