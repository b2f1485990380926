import { afterEach, describe, expect, it, vi } from 'vitest';
import { PassThrough } from 'node:stream';
import { createOutput } from '../../../src/cli/output.js';
import { createStyle } from '../../../src/text-style.js';
import { formatEventLine } from '../../../src/cli/render/event-line.js';
import type { ExecutionEvent } from '../../../src/execute/events.js';
import { formatDuration, ProgressModel } from '../../../src/cli/render/progress-model.js';
import { createProgressReporter, renderLiveBlock } from '../../../src/cli/render/progress-view.js';
import { terminalScreen } from './terminal-screen.js';

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

describe('progress lines without a terminal (CI)', () => {
  async function reporterLines() {
    const stderr = new PassThrough();
    let text = '';
    stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const output = createOutput({ env: { CI: 'true' }, stdout: new PassThrough(), stderr });
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const reporter = await createProgressReporter(output, new ProgressModel(ids, 4, () => 0));
    return { reporter, lines: () => text.trimEnd().split('\n') };
  }
  const skipDone = (id: string) =>
    ({ type: 'job-skipped', id, reason: 'done', detail: 'done in attempt 1' }) as const;

  it('tells consecutive jobs done in earlier applies as one line, and a single one as its own', async () => {
    const { reporter, lines } = await reporterLines();
    for (const id of ['a', 'b', 'c']) reporter.onEvent(skipDone(id));
    reporter.onEvent({ type: 'job-created', id: 'd', attempt: 1, jobId: 'j1', resent: false, creditCost: 4 });
    reporter.onEvent(skipDone('e'));
    reporter.finish();
    expect(lines()[0]).toBe('skip      3 jobs already done (a … c)');
    expect(lines()[1]).toMatch(/^created\s+d/);
    expect(lines()[2]).toBe('skip      e: done in attempt 1');
    expect(lines()).toHaveLength(3);
  });

  it('still lists every other skip (failed, deferred, uncertain) on its own line', async () => {
    const { reporter, lines } = await reporterLines();
    reporter.onEvent(skipDone('a'));
    reporter.onEvent(skipDone('b'));
    reporter.onEvent({ type: 'job-skipped', id: 'c', reason: 'failed', detail: 'failed: PROMPT_UNCLEAR' });
    reporter.note('a note');
    reporter.finish();
    expect(lines()).toEqual([
      'skip      2 jobs already done (a … b)',
      'skip      c: failed: PROMPT_UNCLEAR',
      'a note',
    ]);
  });
});

describe('progress on a terminal', () => {
  it('prints held done-skips and event lines above the live block, each once', async () => {
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 100 });
    let text = '';
    stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const output = createOutput({ env: {}, stdout: new PassThrough(), stderr });
    expect(output.interactive).toBe(true);
    const reporter = await createProgressReporter(
      output,
      new ProgressModel(['a', 'b', 'c', 'd'], 4, () => 0),
    );
    for (const id of ['a', 'b', 'c']) {
      reporter.onEvent({ type: 'job-skipped', id, reason: 'done', detail: 'done in attempt 1' });
    }
    reporter.onEvent({ type: 'job-created', id: 'd', attempt: 1, jobId: 'j1', resent: false, creditCost: 4 });
    reporter.note('a note');
    reporter.finish();
    // Lines are written whole; the live block's cursor moves and clears come between them.
    const plain = text;
    expect(plain.split('skip      3 jobs already done (a … c)')).toHaveLength(2);
    expect(plain.indexOf('skip      3 jobs')).toBeLessThan(plain.indexOf('created'));
    expect(plain.indexOf('created')).toBeLessThan(plain.indexOf('a note'));
    expect(plain).toContain('done 3');
  });
});

describe('the live block on a narrow terminal', () => {
  afterEach(() => vi.useRealTimers());

  it('leaves the event lines once and the last block once, however its lines wrap', async () => {
    vi.useFakeTimers();
    const columns = 40;
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns, rows: 30 });
    let text = '';
    stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    const output = createOutput({ env: { NO_COLOR: '1' }, stdout: new PassThrough(), stderr });
    const ids = [
      'a-rather-long-job-id-for-a-narrow-terminal-1',
      'a-rather-long-job-id-for-a-narrow-terminal-2',
    ];
    const reporter = await createProgressReporter(output, new ProgressModel(ids, 4, () => 0), () =>
      Date.now(),
    );
    const events: ExecutionEvent[] = [];
    for (const [n, id] of ids.entries()) {
      events.push({ type: 'job-created', id, attempt: 1, jobId: `j${n}`, resent: false, creditCost: 4 });
    }
    for (const progress of [10, 50, 90]) {
      for (const [n, id] of ids.entries()) {
        events.push({
          type: 'job-status',
          id,
          attempt: 1,
          jobId: `j${n}`,
          status: 'running',
          phase: 'running',
          progress,
        });
      }
    }
    events.push({
      type: 'job-completed',
      id: ids[0]!,
      attempt: 1,
      jobId: 'j0',
      resultUrls: ['https://x/1.png'],
    });
    for (const event of events) {
      reporter.onEvent(event);
      vi.advanceTimersByTime(150);
    }
    reporter.note('a note');
    vi.advanceTimersByTime(150);
    reporter.finish();

    const screen = terminalScreen(text, columns);
    // The counts line (over 40 columns, so on two rows) once: every earlier block was erased whole.
    expect(screen.filter((row) => / · credits \d/.test(row))).toHaveLength(1);
    expect(screen.filter((row) => row.startsWith('1/2'))).toHaveLength(1);
    expect(screen.filter((row) => row.includes('a note'))).toHaveLength(1);
    // The screen ends with the last block, as it shows on 40 columns.
    const replayed = new ProgressModel(ids, 4, () => 0);
    for (const event of events) replayed.apply(event);
    const { etaMs: _finalHasNoEta, ...last } = replayed.snapshot();
    const lastBlock = renderLiveBlock(last, { style: plain });
    expect(lastBlock[0]!.length).toBeGreaterThan(columns);
    const lastRows = terminalScreen(lastBlock.join('\n'), columns);
    expect(screen.slice(-lastRows.length)).toEqual(lastRows);
  });
});
