import { describe, expect, it } from 'vitest';
import { readOlderThan } from '../../../src/cli/parse/state.js';
import type { RunSummary } from '../../../src/state/run-summary.js';
import { describeUnfinished, selectRunsToPrune } from '../../../src/state/prune-runs.js';

function run(
  runId: string,
  lastAppliedAt: string | undefined,
  counts: Partial<RunSummary['counts']> = {},
): RunSummary {
  return {
    runId,
    ...(lastAppliedAt === undefined ? {} : { startedAt: lastAppliedAt, lastAppliedAt }),
    applies: 1,
    counts: {
      jobs: 2,
      pending: 0,
      creating: 0,
      open: 0,
      done: 2,
      failed: 0,
      deferred: 0,
      uncertain: 0,
      ...counts,
    },
    creditsSpent: 8,
    dir: `/state/p/${runId}`,
    unfinished: { open: 0, undownloaded: 0, ids: [] },
    warnings: [],
  };
}

const runs = [
  run('a', '2026-01-01T00:00:00Z'),
  run('b', '2026-02-01T00:00:00Z'),
  run('c', '2026-03-01T00:00:00Z'),
];
const ids = (selected: RunSummary[]) => selected.map((summary) => summary.runId);

describe('selectRunsToPrune (#33.14)', () => {
  it('keeps the newest N, the runs older than a time, or only what both rules let go', () => {
    expect(ids(selectRunsToPrune(runs, {}))).toEqual([]);
    expect(ids(selectRunsToPrune(runs, { keepRuns: 1 }))).toEqual(['a', 'b']);
    expect(ids(selectRunsToPrune(runs, { keepRuns: 0 }))).toEqual(['a', 'b', 'c']);
    expect(ids(selectRunsToPrune(runs, { keepRuns: 5 }))).toEqual([]);
    expect(ids(selectRunsToPrune(runs, { before: Date.parse('2026-02-15') }))).toEqual(['a', 'b']);
    expect(ids(selectRunsToPrune(runs, { keepRuns: 2, before: Date.parse('2026-02-15') }))).toEqual(['a']);
  });

  it('never selects by age a run whose state records no time', () => {
    expect(ids(selectRunsToPrune([run('x', undefined)], { before: Date.parse('2999-01-01') }))).toEqual([]);
  });

  it('names the paid work a run left unfinished; pending (never created) and failed jobs are not', () => {
    expect(describeUnfinished(run('a', undefined, { pending: 3, failed: 1 }))).toBeUndefined();
    expect(describeUnfinished(run('a', undefined, { open: 1, creating: 1, uncertain: 1 }))).toBe(
      '2 paid jobs still open on the service, 1 create whose answer was lost (the job may exist and be paid)',
    );
    const owed = { ...run('a', undefined), unfinished: { open: 0, undownloaded: 1, ids: ['j'] } };
    expect(describeUnfinished(owed)).toBe('1 done job whose results are not saved yet');
  });
});

describe('--older-than', () => {
  it('reads an age or a date, and refuses anything else naming the forms', () => {
    expect(readOlderThan('30d')).toEqual({ ms: 30 * 86_400_000 });
    expect(readOlderThan('12h')).toEqual({ ms: 12 * 3_600_000 });
    expect(readOlderThan('2w')).toEqual({ ms: 14 * 86_400_000 });
    expect(readOlderThan('2026-11-01')).toEqual({ before: Date.parse('2026-11-01T00:00:00Z') });
    expect(() => readOlderThan('30 days')).toThrow(/expects an age \(30d, 12h, 2w\) or a date/);
    expect(() => readOlderThan('yesterday')).toThrow(/received "yesterday"/);
  });
});
