import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../../src/plan/estimate-cost.js';
import { nextStep, stepMayPay, stepViewOf, type StepPolicy } from '../../../src/plan/next-step.js';
import { summarizePreviousState } from '../../../src/plan/previous-state.js';
import type { AttemptState, JobState, JobStatus } from '../../../src/state/job-state.js';
import { makeCatalog } from '../catalog/fixtures.js';
import { makePlan, plannedJob } from './plan-fixtures.js';

const NOW = 1_000_000_000;
const WINDOW = 270_000;
const policy = (over: Partial<StepPolicy> = {}): StepPolicy => ({
  replaceDue: false,
  retryFailed: false,
  resendUncertain: false,
  idempotent: true,
  keyWindowMs: WINDOW,
  ...over,
});

function attempt(over: Partial<AttemptState> = {}): AttemptState {
  return {
    attempt: 1,
    payloadHash: 'hash-j',
    intentAt: NOW - 1000,
    outcome: 'open',
    resultUrls: [],
    ...over,
  };
}

function jobState(status: JobStatus, last: Partial<AttemptState> = {}): JobState {
  return {
    id: 'j',
    payloadHash: last.payloadHash ?? 'hash-j',
    status,
    attempts: [attempt(last)],
    downloads: [],
  };
}

const stepOf = (state: JobState | undefined, samePayload = true, over: Partial<StepPolicy> = {}) =>
  nextStep(state === undefined ? undefined : stepViewOf(state), samePayload, policy(over), NOW);

describe('nextStep: what happens to a job next (#34.2)', () => {
  it('creates a job the state has never seen, and a pending one', () => {
    expect(stepOf(undefined)).toEqual({ kind: 'create', why: 'new' });
    expect(stepOf(jobState('pending', { outcome: 'retry' }))).toEqual({ kind: 'create', why: 'new' });
  });

  it('follows an open paid job to its end before a changed payload is created', () => {
    expect(stepOf(jobState('open', { jobId: 'J1' }), false)).toEqual({ kind: 'follow', then: 'create' });
    expect(stepOf(jobState('uncertain', { jobId: 'J1' }), false)).toEqual({ kind: 'follow', then: 'create' });
    expect(stepOf(jobState('done', { jobId: 'J1' }), false)).toEqual({ kind: 'create', why: 'changed' });
    expect(stepOf(jobState('creating'), false)).toEqual({ kind: 'create', why: 'changed' });
  });

  it('skips a done job unless its replacement is due, and gives up on a failure unless asked to retry', () => {
    expect(stepOf(jobState('done', { jobId: 'J1' }))).toEqual({ kind: 'skip' });
    expect(stepOf(jobState('done', { jobId: 'J1' }), true, { replaceDue: true })).toEqual({
      kind: 'create',
      why: 'replace',
    });
    expect(stepOf(jobState('failed', { jobId: 'J1' }))).toEqual({ kind: 'give-up' });
    expect(stepOf(jobState('failed', { jobId: 'J1' }), true, { retryFailed: true })).toEqual({
      kind: 'create',
      why: 'retry-failed',
    });
    // An open job is followed even when its replacement is due: it is replaced once it ends.
    expect(stepOf(jobState('open', { jobId: 'J1' }), true, { replaceDue: true })).toEqual({ kind: 'follow' });
  });

  it('waits out a deferral, then creates', () => {
    expect(stepOf(jobState('deferred', { jobId: 'J1', notBefore: NOW + 1 }))).toEqual({
      kind: 'wait',
      until: NOW + 1,
    });
    expect(stepOf(jobState('deferred', { jobId: 'J1', notBefore: NOW }))).toEqual({
      kind: 'create',
      why: 'deferred-due',
    });
  });

  it('re-sends an unanswered keyed create only inside its key window, and never an image id it has', () => {
    const keyed = { outcome: 'creating' as const, idempotencyKey: 'k' };
    expect(stepOf(jobState('creating', keyed))).toEqual({ kind: 'resend-with-key' });
    expect(stepOf(jobState('creating', { ...keyed, intentAt: NOW - WINDOW }))).toEqual({
      kind: 'settle-lost-create',
    });
    // The clock set back: the intent is in this machine's future, its age unknown.
    expect(stepOf(jobState('creating', { ...keyed, intentAt: NOW + 5 }))).toEqual({
      kind: 'settle-lost-create',
    });
    expect(stepOf(jobState('creating', keyed), true, { idempotent: false })).toEqual({
      kind: 'settle-lost-create',
    });
    expect(stepOf(jobState('uncertain', { jobId: 'J1' }), true, { resendUncertain: true })).toEqual({
      kind: 'follow',
    });
    expect(stepOf(jobState('uncertain'))).toEqual({ kind: 'look-up' });
    expect(stepOf(jobState('uncertain'), true, { resendUncertain: true })).toEqual({ kind: 'resend' });
  });
});

/** A job's state as replay can leave it: each status with the fields it comes with. */
const arbitraryState: fc.Arbitrary<JobState | undefined> = fc.option(
  fc
    .record({
      status: fc.constantFrom<JobStatus>(
        'pending',
        'creating',
        'open',
        'done',
        'failed',
        'deferred',
        'uncertain',
      ),
      jobId: fc.boolean(),
      keyed: fc.boolean(),
      age: fc.integer({ min: -10_000, max: 2 * WINDOW }),
      notBeforeIn: fc.integer({ min: -10_000, max: 10_000 }),
      changed: fc.boolean(),
    })
    .map(({ status, jobId, keyed, age, notBeforeIn, changed }) => {
      const hasId =
        status === 'open' ||
        status === 'done' ||
        status === 'failed' ||
        status === 'deferred' ||
        (status === 'uncertain' && jobId);
      return jobState(status, {
        payloadHash: changed ? 'hash-earlier' : 'hash-j',
        intentAt: NOW - age,
        ...(hasId ? { jobId: 'J1' } : {}),
        ...(keyed ? { idempotencyKey: 'k' } : {}),
        ...(status === 'deferred' ? { notBefore: NOW + notBeforeIn } : {}),
      });
    }),
  { nil: undefined },
);

describe('plan and apply share the rule', () => {
  it('the plan counts a job to run exactly when its first step creates or re-sends a create that may be paid', () => {
    fc.assert(
      fc.property(
        fc.array(arbitraryState, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        fc.boolean(),
        (states, retryFailed, resendUncertain) => {
          const jobs = states.map((_, index) => plannedJob(`j${index}`, { credits: 1, hash: 'hash-j' }));
          const previousJobs = new Map<string, JobState>();
          states.forEach((state, index) => {
            if (state !== undefined) previousJobs.set(`j${index}`, { ...state, id: `j${index}` });
          });
          const report = estimateCost(
            makePlan(jobs),
            makeCatalog(),
            {},
            {
              maxAttempts: 1,
              previous: summarizePreviousState(previousJobs, { retryFailed, resendUncertain, now: NOW }),
            },
          );
          const expected = states.map((state) => {
            const samePayload = state === undefined || state.payloadHash === 'hash-j';
            const step = nextStep(
              state === undefined ? undefined : stepViewOf(state),
              samePayload,
              policy({ retryFailed, resendUncertain }),
              NOW,
            );
            return stepMayPay(step);
          });
          expect(report.jobList.map((job) => job.toRun)).toEqual(expected);
          expect(report.jobs.toRun).toBe(expected.filter(Boolean).length);
        },
      ),
      { numRuns: 300 },
    );
  });
});
