import { describe, it, expect } from 'vitest';
import { createStyle } from '../../../src/text-style.js';
import { renderStatus } from '../../../src/cli/render/status.js';
import { replayJournal } from '../../../src/state/replay.js';
import { buildStatusView } from '../../../src/state/status-view.js';

const lines = [
  { type: 'intent', at: 1, id: 'vague', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: 2, id: 'vague', attempt: 1, jobId: 'J1', creditCost: 4 },
  {
    type: 'failed',
    at: 3,
    id: 'vague',
    attempt: 1,
    failureKind: 'PROMPT_UNCLEAR',
    error: 'The prompt "a thing" does not say what to draw',
    willRetry: false,
  },
  { type: 'intent', at: 4, id: 'bad', attempt: 1, payloadHash: 'h' },
  {
    type: 'create-failed',
    at: 5,
    id: 'bad',
    attempt: 1,
    code: 'SERVICE_VALIDATION',
    message: 'size 9999x9999 is not supported',
    final: true,
  },
  { type: 'intent', at: 6, id: 'lost', attempt: 1, payloadHash: 'h' },
  { type: 'uncertain', at: 7, id: 'lost', attempt: 1, reason: 'no answer to the create' },
  { type: 'intent', at: 8, id: 'fine', attempt: 1, payloadHash: 'h' },
  { type: 'created', at: 9, id: 'fine', attempt: 1, jobId: 'J2', creditCost: 4 },
  { type: 'completed', at: 10, id: 'fine', attempt: 1, resultUrls: [] },
];

describe('runner status text view (#7.5)', () => {
  it('adds a Machine column and a count per machine only when the state names machines (#17.4)', () => {
    const { jobs } = replayJournal(lines.map((line) => JSON.stringify(line)).join('\n'));
    const machines = new Map([
      ['vague', 'ci-2'],
      ['bad', 'ci-1'],
      ['fine', 'ci-1'],
    ]);
    const text = renderStatus(buildStatusView(jobs, undefined, machines), createStyle(false), 200);
    expect(text.split('\n')[0]).toMatch(/Files\s+Machine$/);
    expect(text).toMatch(/^fine .* ci-1$/m);
    expect(text).toContain('Machines: ci-1 (2 jobs), ci-2 (1 job).');
    const plain = renderStatus(buildStatusView(jobs), createStyle(false), 200);
    expect(plain).not.toMatch(/Machine/);
  });

  it('shows the error text and the advice of every job that needs attention', () => {
    const view = buildStatusView(replayJournal(lines.map((line) => JSON.stringify(line)).join('\n')).jobs);
    const text = renderStatus(view, createStyle(false), 200);
    const section = text.slice(text.indexOf('Needs attention:'));
    expect(section).toContain(
      'vague (failed, PROMPT_UNCLEAR): The prompt "a thing" does not say what to draw',
    );
    // The advice the report gives (#33.11), without the failureKind its line already names.
    expect(section).toContain('    The description is too vague: change the prompt.');
    expect(section).toContain('bad (failed): SERVICE_VALIDATION: size 9999x9999 is not supported');
    expect(section).toContain('fix the job in the manifest; nothing was created or charged');
    expect(section).toContain('lost (uncertain): no answer to the create');
    expect(section).toContain('--resend-uncertain');
    expect(section).not.toContain('fine');
  });

  it('has no such section when every job is fine, and cuts a long error to one line', () => {
    const ok = buildStatusView(
      replayJournal(
        lines
          .slice(-3)
          .map((line) => JSON.stringify(line))
          .join('\n'),
      ).jobs,
    );
    expect(renderStatus(ok, createStyle(false))).not.toContain('Needs attention');
    const long = [
      { type: 'intent', at: 1, id: 'x', attempt: 1, payloadHash: 'h' },
      { type: 'created', at: 1, id: 'x', attempt: 1, jobId: 'J' },
      {
        type: 'failed',
        at: 2,
        id: 'x',
        attempt: 1,
        failureKind: 'K',
        error: `a\n${'b'.repeat(1000)}`,
        willRetry: false,
      },
    ];
    const text = renderStatus(
      buildStatusView(replayJournal(long.map((line) => JSON.stringify(line)).join('\n')).jobs),
      createStyle(false),
    );
    expect(text).toMatch(/x \(failed, K\): a b{398}… \(see --json\)/);
  });
});

describe('times a person reads in the status text', () => {
  it('shows when the links of a paid, unsaved result expire in UTC words, not ISO', () => {
    const completedAt = Date.UTC(2026, 10, 20, 7, 0, 17);
    const journal = [
      { type: 'intent', at: completedAt - 2, id: 'owed', attempt: 1, payloadHash: 'h' },
      { type: 'created', at: completedAt - 1, id: 'owed', attempt: 1, jobId: 'J9', creditCost: 4 },
      { type: 'completed', at: completedAt, id: 'owed', attempt: 1, resultUrls: ['https://r/a.png'] },
    ];
    const view = buildStatusView(replayJournal(journal.map((line) => JSON.stringify(line)).join('\n')).jobs);
    expect(view.jobs[0]?.resultsExpireAt).toBe('2026-11-27T07:00:17.000Z');
    const text = renderStatus(view, createStyle(false), 200);
    expect(text).toContain(
      'owed (downloading): paid, 1 result(s) not saved; the links expire 27 Nov 2026, 07:00 UTC',
    );
  });

  it('says how to continue a run a killed apply left with jobs open and not started', () => {
    // Found playing "a machine killed mid-run": status listed 4 open and 9 pending jobs and exited 1,
    // with no word on what to do (only `runner runs` named the command).
    const killed = [
      { type: 'intent', at: 1, id: 'fine', attempt: 1, payloadHash: 'h' },
      { type: 'created', at: 2, id: 'fine', attempt: 1, jobId: 'J1', creditCost: 4 },
      { type: 'completed', at: 3, id: 'fine', attempt: 1, resultUrls: [] },
      { type: 'intent', at: 4, id: 'running', attempt: 1, payloadHash: 'h' },
      { type: 'created', at: 5, id: 'running', attempt: 1, jobId: 'J2', creditCost: 4 },
    ];
    const { jobs } = replayJournal(killed.map((line) => JSON.stringify(line)).join('\n'));
    const resume = 'runner apply m.yaml --run n1 --state postgres://db@host/runner';
    const commands = { resend: 'r', retryFailed: 'f', downloadOnly: 'd', resume };
    const view = buildStatusView(jobs, ['fine', 'running', 'later-1', 'later-2']);
    expect(renderStatus(view, createStyle(false), 200, commands)).toContain(
      `\nNot finished: 1 paid job open, 2 not started. Unless an apply is running it now, \`${resume}\` continues the run: done jobs are skipped and open ones followed to their end, nothing is paid twice, and the 2 not started are created and paid for (\`runner plan\` with the same flags shows what they cost; add --only to keep to some).`,
    );
    const done = replayJournal(
      killed
        .slice(0, 3)
        .map((line) => JSON.stringify(line))
        .join('\n'),
    ).jobs;
    expect(renderStatus(buildStatusView(done, ['fine']), createStyle(false), 200, commands)).not.toContain(
      'Not finished',
    );
  });
});
