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
});
