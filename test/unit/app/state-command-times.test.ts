import { describe, expect, it } from 'vitest';
import { describeLease } from '../../../src/app/state-move.js';
import { renderPrune } from '../../../src/app/state-prune.js';

describe('runner state lease: the line a person reads', () => {
  const lease = {
    holder: 'ci-7 1a2b3c4d',
    token: '3',
    acquiredAt: '2026-11-27T07:00:17.393Z',
    expiresAt: '2026-11-27T07:00:47.393Z',
    released: false,
    live: true,
  };

  it('says when a live lease was taken and when it expires in UTC words, to the second', () => {
    expect(describeLease('run "r1" of pipeline "p"', lease)).toBe(
      'Lease on run "r1" of pipeline "p": held; holder ci-7 1a2b3c4d, token 3, taken 27 Nov 2026, 07:00:17 UTC, expires 27 Nov 2026, 07:00:47 UTC.',
    );
  });

  it('says when an ended lease ended', () => {
    expect(describeLease('run "r1" of pipeline "p"', { ...lease, live: false, released: true })).toMatch(
      /: released; .* ended 27 Nov 2026, 07:00:47 UTC\.$/,
    );
  });
});

describe('runner state prune: the runs it names', () => {
  it('says when each pruned run started and was last applied in UTC words, not ISO', () => {
    const text = renderPrune(
      {
        schemaVersion: 1,
        pipeline: 'p',
        stateRoot: '/state',
        dryRun: true,
        pruned: [
          {
            runId: 'r1',
            pipeline: 'p',
            startedAt: '2026-10-01T06:30:59.999Z',
            lastAppliedAt: '2026-10-02T18:04:00.000Z',
            jobs: 2,
            creditsSpent: 4,
            bytes: 512,
          },
        ],
        kept: [],
        remaining: 1,
      },
      { manifestFile: 'm.yaml', state: {} },
    );
    expect(text).toContain('  r1  started 1 Oct 2026, 06:30 UTC  last applied 2 Oct 2026, 18:04 UTC  2 jobs');
  });
});
