import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const TIME_SCALE = 0.005;
const SUBJECTS = ['fox', 'owl'];
const STYLES = ['ink', 'oil'];

interface PageEntry {
  id: string;
  attempt?: number;
  payloadHash?: string;
  files: { href: string }[];
  replaced?: {
    attempt: number;
    replacedBy: number;
    rejected: boolean;
    note?: string;
    files: { href: string }[];
  }[];
}

/** The entries of a report.html, as its page script reads them. */
async function readReportEntries(file: string): Promise<PageEntry[]> {
  const html = await readFile(file, 'utf8');
  const json = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
  return (JSON.parse(json) as { entries: PageEntry[] }).entries;
}

/**
 * The review loop through the built CLI against the simulator (#19.3): apply, the report, a decisions
 * file made from the report's own data (what its Export button writes), `plan --replace-from` (the
 * cost first), `apply --replace-from` (creates on the simulator = the rejected jobs, counted on its
 * stats), the same again (creates 0), and the next report (old and new side by side). Bad decisions
 * files exit 2 with nothing created.
 */
describe('review → reject → re-generate (built binary)', () => {
  let simulator: Simulator;
  let dir = '';
  let manifest = '';
  let env: Record<string, string> = {};
  let where: string[] = [];
  let entries: PageEntry[] = [];
  const jobIds = SUBJECTS.flatMap((subject) => STYLES.map((style) => `img-${subject}-${style}`));

  const decisionsFile = async (name: string, body: Record<string, unknown>) => {
    const file = join(dir, name);
    await writeFile(file, JSON.stringify(body, null, 2));
    return file;
  };
  const decide = (id: string, decision: string, extra: Record<string, unknown> = {}) => {
    const entry = entries.find((candidate) => candidate.id === id);
    return { jobId: id, decision, attempt: entry?.attempt, payloadHash: entry?.payloadHash, ...extra };
  };
  const decisions = (list: unknown[], head: Record<string, unknown> = {}) => ({
    kind: 'runner-review-decisions',
    schemaVersion: 1,
    pipeline: 'review-loop',
    runId: 'night-1',
    exportedAt: '2026-01-02T03:04:05.000Z',
    decisions: list,
    ...head,
  });

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: TIME_SCALE });
    dir = await makeWorkDir('review-loop');
    manifest = join(dir, 'review-loop.yaml');
    await writeFile(
      manifest,
      `version: 1
name: review-loop
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: 'img-{{ subject }}-{{ style }}'
    matrix:
      subject: [${SUBJECTS.join(', ')}]
      style: [${STYLES.join(', ')}]
    prompt: A detailed {{ style }} picture of a {{ subject }} standing in a misty forest at dawn [[one-image]]
`,
    );
    env = simulatorEnv(simulator);
    where = ['--run', 'night-1', '--state-dir', join(dir, 'state'), '--output', join(dir, 'out')];
    const first = await runCli(['apply', manifest, ...where, ...FAST_YES], { env, timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    expect(simulator.stats().jobsCreated).toBe(4);
    entries = await readReportEntries(join(dir, 'out', 'report.html'));
    expect(entries.map((entry) => [entry.id, entry.attempt])).toEqual(jobIds.map((id) => [id, 1]));
  }, 90_000);

  afterAll(async () => {
    await simulator?.close();
  });

  it('refuses bad decisions files with exit 2, every problem at its file:line:col, and creates nothing', async () => {
    const cases: [string, string | Record<string, unknown>, RegExp[]][] = [
      ['not-json.json', '{ "kind": "runner-review-decisions", ', [/not-json\.json:\d+:\d+ error .*not JSON/]],
      [
        'plan.json',
        { kind: 'runner-plan', schemaVersion: 2 },
        [/plan\.json:2:\d+ error not-a-decisions-file/],
      ],
      [
        'newer.json',
        decisions([], { schemaVersion: 2 }),
        [/newer\.json:\d+:\d+ error decisions-version: .*schemaVersion 2; this runner reads version 1/],
      ],
      [
        'several.json',
        decisions(
          [decide('img-fox-ink', 'rejected', { jobId: 'img-fox-inc' }), decide('img-owl-oil', 'maybe')],
          { runId: 'night-2' },
        ),
        [
          /several\.json:\d+:\d+ error invalid-decisions: decisions\[1\]\.decision must be one of approved, rejected; received "maybe"/,
        ],
      ],
      [
        'other-run.json',
        decisions([decide('img-fox-ink', 'rejected', { jobId: 'img-fox-inc' })], { runId: 'night-2' }),
        [
          /other-run\.json:\d+:\d+ error decisions-other-run: the decisions were made on run "night-2", not on run "night-1"/,
          /other-run\.json:\d+:\d+ error unknown-job: .*"img-fox-inc".*\n {2}hint: did you mean "img-fox-ink"\?/,
        ],
      ],
      [
        'future.json',
        decisions([decide('img-owl-ink', 'rejected', { attempt: 3 })]),
        [
          /future\.json:\d+:\d+ error \[img-owl-ink\] decision-unknown-attempt: .*attempt 3.*attempts up to 1/,
        ],
      ],
    ];
    for (const [name, body, patterns] of cases) {
      const file = join(dir, name);
      await writeFile(file, typeof body === 'string' ? body : JSON.stringify(body, null, 2));
      for (const command of ['plan', 'apply']) {
        const result = await runCli(
          [command, manifest, ...where, '--replace-from', file, ...(command === 'apply' ? FAST_YES : [])],
          {
            env,
          },
        );
        expect(result.code, `${command} ${name}: ${result.stderr}`).toBe(2);
        for (const pattern of patterns) expect(result.stderr, `${command} ${name}`).toMatch(pattern);
      }
    }
    expect(simulator.stats().jobsCreated).toBe(4);
    const combined = await runCli(
      ['apply', manifest, ...where, '--replace-from', join(dir, 'future.json'), '--only', 'img-*'],
      {
        env,
      },
    );
    expect(combined.code).toBe(2);
    expect(combined.stderr).toContain('cannot be combined with --only');
    const saved = await runCli(
      [
        'plan',
        manifest,
        ...where,
        '--replace-from',
        join(dir, 'future.json'),
        '--out-plan',
        join(dir, 'p.json'),
      ],
      { env },
    );
    expect(saved.code).toBe(2);
    expect(saved.stderr).toContain('cannot be combined with --out-plan');
    const newer = await runCli(['plan', manifest, ...where, '--replace-from', join(dir, 'newer.json')], {
      env,
    });
    expect(newer.stderr).toContain('1 error, 0 warnings in ' + join(dir, 'newer.json'));
  }, 120_000);

  it('plans, then re-generates exactly the rejected jobs once, and the next report shows old beside new', async () => {
    const file = await decisionsFile(
      'decisions.json',
      decisions([
        decide('img-fox-ink', 'rejected', { note: 'the fox has five legs' }),
        decide('img-fox-oil', 'approved'),
        // A key pasted into a note is never journaled nor shown (README "The API key stays out").
        decide('img-owl-oil', 'rejected', { file: 1, note: `too dark (${simulator.apiKey})` }),
        decide('img-owl-ink', 'approved', { file: 1 }),
      ]),
    );
    const plan = await runCli(['plan', manifest, ...where, '--replace-from', file, '--format', 'json'], {
      env,
    });
    expect(plan.code, plan.stderr).toBe(0);
    const report = JSON.parse(plan.stdout) as {
      jobs: { total: number; toRun: number };
      targeting: { replace: string[]; leftOut: string[] };
      jobList: { id: string; toRun: boolean }[];
    };
    expect(report.jobs).toMatchObject({ total: 2, toRun: 2 });
    expect(report.targeting.replace).toEqual(['img-fox-ink', 'img-owl-oil']);
    expect(report.targeting.leftOut).toEqual(['img-fox-oil', 'img-owl-ink']);
    expect(simulator.stats().jobsCreated).toBe(4);

    const apply = await runCli(['apply', manifest, ...where, '--replace-from', file, ...FAST_YES], {
      env,
      timeoutMs: 60_000,
    });
    expect(apply.code, apply.stderr).toBe(0);
    expect(simulator.stats().jobsCreated).toBe(6);
    const created = simulator
      .stats()
      .jobs.slice(4)
      .map((job) => job.jobId);
    expect(created).toHaveLength(2);

    // The same file again: both jobs were re-generated since their rejection; nothing is paid twice.
    const again = await runCli(['apply', manifest, ...where, '--replace-from', file, ...FAST_YES], {
      env,
      timeoutMs: 60_000,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      'img-fox-ink: rejected on attempt 1, already re-generated (attempt 2 is its latest)',
    );
    expect(simulator.stats().jobsCreated).toBe(6);

    const reportRun = await runCli(['report', manifest, ...where], { env });
    expect(reportRun.code, reportRun.stderr).toBe(0);
    const next = await readReportEntries(join(dir, 'out', 'report.html'));
    expect(next.map((entry) => [entry.id, entry.attempt])).toEqual([
      ['img-fox-ink', 2],
      ['img-fox-oil', 1],
      ['img-owl-ink', 1],
      ['img-owl-oil', 2],
    ]);
    const foxInk = next.find((entry) => entry.id === 'img-fox-ink');
    expect(foxInk?.replaced).toEqual([
      {
        attempt: 1,
        replacedBy: 2,
        rejected: true,
        note: 'the fox has five legs',
        files: [expect.objectContaining({ href: '.superseded/attempt-1/img-fox-ink.png' })],
      },
    ]);
    expect(foxInk?.files.map((f) => f.href)).toEqual(['img-fox-ink.png']);
    expect(next.find((entry) => entry.id === 'img-owl-oil')?.replaced?.[0]?.note).toBe(
      'result 1: too dark ([REDACTED])',
    );
    const journal = await readFile(join(dir, 'state', 'review-loop', 'night-1', 'journal.jsonl'), 'utf8');
    expect(journal).toContain('"rejectionNote":"the fox has five legs"');
    expect(journal).not.toContain(simulator.apiKey);
    expect(existsSync(join(dir, 'out', '.superseded', 'attempt-1', 'img-fox-ink.png'))).toBe(true);
    expect(existsSync(join(dir, 'out', 'img-fox-ink.png'))).toBe(true);
    // The apply's own results index covers the whole run, not only the two jobs it ran.
    const index = JSON.parse(await readFile(join(dir, 'out', 'results.json'), 'utf8')) as {
      results: { id: string }[];
    };
    expect(index.results.map((row) => row.id)).toEqual(jobIds);
  }, 120_000);

  it('re-generates nothing, successfully, from decisions that reject nothing', async () => {
    const file = await decisionsFile('approvals.json', decisions([decide('img-fox-oil', 'approved')]));
    const result = await runCli(['apply', manifest, ...where, '--replace-from', file, ...FAST_YES], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('The decisions reject no job: nothing to re-generate.');
    expect(simulator.stats().jobsCreated).toBe(6);
  });

  it('refuses decisions that reject nothing but are of another run or decide a job twice (exit 2, #32.7)', async () => {
    // Before: exit 0, "The decisions reject no job", where bad decisions are refused.
    const file = await decisionsFile(
      'approvals-elsewhere.json',
      decisions([decide('img-fox-oil', 'approved'), decide('img-fox-oil', 'approved')], { runId: 'night-9' }),
    );
    for (const command of ['plan', 'apply']) {
      const args = [
        command,
        manifest,
        ...where,
        '--replace-from',
        file,
        ...(command === 'apply' ? FAST_YES : []),
      ];
      const result = await runCli(args, { env });
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain('the decisions were made on run "night-9", not on run "night-1"');
      expect(result.stderr).toContain('decisions[1] decides job "img-fox-oil" a second time');
      expect(result.stderr).not.toContain('reject no job');
    }
    expect(simulator.stats().jobsCreated).toBe(6);
  });
});
