import { describe, expect, it } from 'vitest';
import { renderRuns } from '../../../src/cli/render/runs.js';
import type { RunSummary } from '../../../src/state/index.js';
import { createStyle } from '../../../src/text-style.js';

/** A finished run of four jobs, started at a frozen instant (as its journal records it: ISO). */
function run(runId: string, startedAt: string): RunSummary {
  return {
    runId,
    startedAt,
    lastAppliedAt: startedAt,
    applies: 1,
    counts: { jobs: 4, pending: 0, creating: 0, open: 0, done: 4, failed: 0, deferred: 0, uncertain: 0 },
    creditsSpent: 8,
    dir: `/state/${runId}`,
    unfinished: { open: 0, undownloaded: 0, ids: [] },
    warnings: [],
  };
}

describe('runner runs table', () => {
  it('shows when each run started in UTC words, as status and apply write times, not ISO', () => {
    const text = renderRuns(
      {
        schemaVersion: 1,
        pipeline: 'p',
        stateRoot: '/state',
        runs: [run('night-1', '2026-11-27T07:00:17.393Z'), run('night-2', '2026-11-28T19:05:00.000Z')],
      },
      createStyle(false),
    );
    const rows = text.split('\n');
    expect(rows[0]).toMatch(/^Run +Started +Applies/);
    expect(rows[1]).toMatch(/^night-1 +27 Nov 2026, 07:00 UTC +1 +4 +done 4 +8$/);
    expect(rows[2]).toMatch(/^night-2 +28 Nov 2026, 19:05 UTC +1 +4 +done 4 +8$/);
  });

  it('leaves the cell empty for a run whose start is not recorded', () => {
    const { startedAt: _startedAt, ...unknown } = run('old', '');
    const text = renderRuns(
      { schemaVersion: 1, pipeline: 'p', stateRoot: '/state', runs: [unknown] },
      createStyle(false),
    );
    expect(text.split('\n')[1]).toMatch(/^old +1 +4 +done 4 +8$/);
  });
});
