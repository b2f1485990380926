import { describe, expect, it } from 'vitest';
import { createStyle } from '../../../src/cli/output.js';
import { formatEventLine } from '../../../src/cli/render/event-line.js';
import { formatDuration, ProgressModel } from '../../../src/cli/render/progress-model.js';
import { renderLiveBlock } from '../../../src/cli/render/progress-view.js';

const plain = createStyle(false);

describe('ProgressModel', () => {
  it('follows jobs from pending to done or failed, with credits net of failed jobs and an ETA', () => {
    let now = 0;
    const model = new ProgressModel(['a', 'b', 'c', 'd', 'e'], 2, () => now);
    model.apply({ type: 'job-created', id: 'a', attempt: 1, jobId: 'j1', resent: false, creditCost: 4 });
    model.apply({
      type: 'job-created',
      id: 'b',
      attempt: 1,
      jobId: 'j2',
      resent: false,
      creditCost: 4,
      queuePosition: 1,
    });
    expect(model.snapshot().counts).toMatchObject({ running: 1, queued: 1, pending: 3 });
    expect(model.snapshot().etaMs).toBeUndefined();

    model.apply({
      type: 'job-status',
      id: 'b',
      attempt: 1,
      jobId: 'j2',
      status: 'Processing',
      phase: 'running',
      progress: 40,
    });
    expect(model.snapshot().open).toEqual([
      { id: 'a', state: 'running' },
      { id: 'b', state: 'running', progress: 40 },
    ]);

    now = 10_000;
    model.apply({ type: 'job-completed', id: 'a', attempt: 1, jobId: 'j1', resultUrls: ['u'] });
    model.apply({ type: 'job-failed', id: 'b', attempt: 1, failureKind: 'CONTENT_REJECTED', message: 'no' });
    const snapshot = model.snapshot();
    expect(snapshot.counts).toMatchObject({ done: 1, failed: 1, pending: 3 });
    // b's 4 credits were given back: failed jobs are not charged.
    expect(snapshot.creditsSpent).toBe(4);
    // 3 jobs left, 2 at once, 10 s each → two waves.
    expect(snapshot.etaMs).toBe(20_000);
  });

  it('does not count a resent create twice', () => {
    const model = new ProgressModel(['a'], 4, () => 0);
    model.apply({ type: 'job-created', id: 'a', attempt: 1, jobId: 'j1', resent: true, creditCost: 4 });
    expect(model.snapshot().creditsSpent).toBe(0);
  });

  it('shows jobs skipped from an earlier run in their final state', () => {
    const model = new ProgressModel(['a', 'b'], 4, () => 0);
    model.apply({ type: 'job-skipped', id: 'a', reason: 'done', detail: 'done earlier' });
    model.apply({ type: 'job-skipped', id: 'b', reason: 'uncertain', detail: 'answer lost' });
    expect(model.snapshot().counts).toMatchObject({ done: 1, uncertain: 1, pending: 0 });
  });
});

describe('renderLiveBlock', () => {
  it('shows counts, credits and ETA, then the open jobs aligned', () => {
    const lines = renderLiveBlock(
      {
        counts: { pending: 1, queued: 0, running: 2, done: 3, failed: 0, deferred: 0, uncertain: 0 },
        total: 6,
        creditsSpent: 12,
        etaMs: 65_000,
        open: [
          { id: 'short', state: 'running', progress: 50 },
          { id: 'a-longer-id', state: 'running' },
        ],
      },
      { style: plain },
    );
    expect(lines).toEqual([
      '3/6 · done 3 · running 2 · queued 0 · failed 0 · pending 1 · credits 12 · ETA 1m05s',
      '  running short       [##########..........] 50%',
      '  running a-longer-id',
    ]);
  });
});

describe('formatEventLine', () => {
  it('writes one readable line per event that matters, and none for progress ticks', () => {
    expect(
      formatEventLine(
        {
          type: 'job-created',
          id: 'a',
          attempt: 1,
          jobId: 'j1',
          resent: false,
          chargeSource: 'Credit',
          creditCost: 8,
          queuePosition: 2,
        },
        plain,
      ),
    ).toBe('created   a (job j1, 8 credits, queue position 2)');
    expect(
      formatEventLine(
        {
          type: 'job-failed',
          id: 'a',
          attempt: 1,
          failureKind: 'PROMPT_UNCLEAR',
          message: 'too vague',
          advice: 'Change the prompt.',
        },
        plain,
      ),
    ).toBe('failed    a: PROMPT_UNCLEAR: too vague — Change the prompt.');
    expect(
      formatEventLine(
        {
          type: 'job-status',
          id: 'a',
          attempt: 1,
          jobId: 'j1',
          status: 'Processing',
          phase: 'running',
          progress: 5,
        },
        plain,
      ),
    ).toBeUndefined();
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [12_400, '12s'],
    [185_000, '3m05s'],
    [3_720_000, '1h02m'],
  ])('%d ms is %s', (ms, text) => expect(formatDuration(ms)).toBe(text));
});
