import { describe, expect, it } from 'vitest';
import type { ExecutionSummary } from '../../../src/execute/events.js';
import { renderApplySummary } from '../../../src/cli/render/apply-summary.js';
import { createStyle } from '../../../src/text-style.js';

const summary = (counts: Partial<ExecutionSummary['counts']>): ExecutionSummary => ({
  counts: {
    total: 3,
    done: 3,
    downloading: 0,
    failed: 0,
    pending: 0,
    creating: 0,
    'still-running': 0,
    deferred: 0,
    uncertain: 0,
    downloadFailures: 0,
    ...counts,
  },
  creditsSpent: 8,
  creditsSpentTotal: 12,
  exitReason: 'ok',
  jobs: [],
});

describe('renderApplySummary', () => {
  it('tells credits of this apply from credits of the whole run (a run id may take several applies)', () => {
    const text = renderApplySummary(
      summary({}),
      {
        outputDir: '/out',
        stateDir: '/state/p/night-1',
        runId: 'night-1',
        hints: { again: 'runner apply p.yaml', resend: 'r', status: 's' },
      },
      createStyle(false),
    );
    expect(text).toContain('Credits spent: 8 by this apply, 12 in run night-1 so far.');
  });

  it("names the run's jobs a targeted apply left out that are not done, by status, in status's words", () => {
    const outside = {
      jobs: 5,
      done: 1,
      downloading: 0,
      failed: 2,
      pending: 1,
      creating: 0,
      open: 0,
      deferred: 0,
      uncertain: 1,
    };
    const facts = {
      outputDir: '/out',
      stateDir: '/state/p/night-1',
      runId: 'night-1',
      hints: { again: 'runner apply p.yaml', resend: 'r', status: 'runner status p.yaml --run night-1' },
    };
    const text = renderApplySummary(summary({}), { ...facts, outside }, createStyle(false));
    expect(text.split('\n').slice(0, 2)).toEqual([
      '✓ All 3 jobs done.',
      "Not done outside this apply: 4 of run night-1's 5 other jobs (failed 2, pending 1, uncertain 1). " +
        "The exit code judges only this apply's 3 jobs; `runner status p.yaml --run night-1` shows the whole run.",
    ]);
    const allDone = { ...outside, done: 5, failed: 0, pending: 0, uncertain: 0 };
    expect(renderApplySummary(summary({}), { ...facts, outside: allDone }, createStyle(false))).not.toContain(
      'Not done outside this apply',
    );
  });
});
