import { describe, expect, it } from 'vitest';
import { movedRunError } from '../../../src/state/moved-run-hint.js';

describe('movedRunError', () => {
  it('says when the run moved in UTC words, not ISO', () => {
    const error = movedRunError({ pipeline: 'p', runId: 'r1', manifestFile: 'm.yaml' }, '.runner/p', {
      to: 'postgres://db/runs',
      at: '2026-11-27T07:00:17.393Z',
      back: 'runner state pull m.yaml --run r1',
      applyThere: 'runner apply m.yaml --run r1 --state postgres://db/runs',
    });
    expect(error.message).toContain('moved from .runner/p to postgres://db/runs at 27 Nov 2026, 07:00 UTC:');
  });
});
