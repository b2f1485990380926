import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, makeWorkDir, simulatorEnv } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const TIME_SCALE = 0.005;

/**
 * Found playing the morning review (session 9): after a night with two failed jobs, `apply
 * --replace-from decisions.json` (or `--only`) printed "✓ All 1 jobs done." and exited 0, and nothing
 * said the run still had two failed jobs. The exit code stays this apply's own (docs/cli-reference.md
 * "Exit codes"); the summary and `--json` now say what the run has outside the apply.
 */
describe('a targeted apply says what the run has outside it (built binary)', () => {
  let simulator: Simulator;
  let dir = '';
  let manifest = '';
  let env: Record<string, string> = {};
  let where: string[] = [];
  const status = () => `\`runner status ${manifest} --run night-1 --state-dir ${join(dir, 'state')}\``;

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: TIME_SCALE });
    dir = await makeWorkDir('targeted-summary');
    manifest = join(dir, 'night.yaml');
    await writeFile(
      manifest,
      `version: 1
name: night
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: latte
    prompt: A watercolor advertisement of a latte on a wooden table [[one-image]]
  - id: mocha
    prompt: A watercolor advertisement of a mocha on a wooden table [[fail:SESSION_EXPIRED]]
  - id: chai
    prompt: A watercolor advertisement of a chai on a wooden table [[fail:SESSION_EXPIRED]]
`,
    );
    env = simulatorEnv(simulator);
    where = ['--run', 'night-1', '--state-dir', join(dir, 'state'), '--output', join(dir, 'out')];
    const night = await runCli(['apply', manifest, ...where, ...FAST_YES], { env, timeoutMs: 60_000 });
    expect(night.code, night.stderr).toBe(1);
    expect(night.stdout).toContain('1 of 3 jobs done.');
  }, 90_000);

  afterAll(async () => {
    await simulator?.close();
  });

  it('apply --replace-from: the headline and exit 0 are its own, the next line names the failed jobs', async () => {
    const html = await readFile(join(dir, 'out', 'report.html'), 'utf8');
    const json =
      /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const entries = (
      JSON.parse(json) as { entries: { id: string; attempt?: number; payloadHash?: string }[] }
    ).entries;
    const latte = entries.find((entry) => entry.id === 'latte');
    const decisions = join(dir, 'decisions.json');
    await writeFile(
      decisions,
      JSON.stringify({
        kind: 'runner-review-decisions',
        schemaVersion: 1,
        pipeline: 'night',
        runId: 'night-1',
        exportedAt: '2026-01-02T03:04:05.000Z',
        decisions: [
          { jobId: 'latte', decision: 'rejected', attempt: latte?.attempt, payloadHash: latte?.payloadHash },
        ],
      }),
    );
    const result = await runCli(['apply', manifest, ...where, '--replace-from', decisions, ...FAST_YES], {
      env,
      timeoutMs: 60_000,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.split('\n');
    const headline = lines.findIndex((line) => line === '✓ All 1 jobs done.');
    expect(headline, result.stdout).toBeGreaterThanOrEqual(0);
    expect(lines[headline + 1]).toBe(
      `Not done outside this apply: 2 of run night-1's 2 other jobs (failed 2). ` +
        `The exit code judges only this apply's 1 job; ${status()} shows the whole run.`,
    );
  }, 90_000);

  it('apply --only --json: the counts outside the apply as outsideThisApply', async () => {
    const result = await runCli(
      ['apply', manifest, ...where, '--only', 'mocha', '--retry-failed', '--json', ...FAST_YES],
      { env, timeoutMs: 60_000 },
    );
    // mocha fails again: exit 1 by this apply's own job.
    expect(result.code, result.stderr).toBe(1);
    const summary = JSON.parse(result.stdout) as { counts: { total: number }; outsideThisApply?: unknown };
    expect(summary.counts.total).toBe(1);
    expect(summary.outsideThisApply).toEqual({
      jobs: 2,
      pending: 0,
      creating: 0,
      open: 0,
      done: 1,
      downloading: 0,
      failed: 1,
      deferred: 0,
      uncertain: 0,
    });
  }, 90_000);

  it('says nothing of the run outside an apply that left no job out, nor when the rest is done', async () => {
    const whole = await runCli(['apply', manifest, ...where, ...FAST_YES], { env, timeoutMs: 60_000 });
    expect(whole.code, whole.stderr).toBe(1);
    expect(whole.stdout).not.toContain('Not done outside this apply');
    const json = await runCli(['apply', manifest, ...where, '--json', ...FAST_YES], {
      env,
      timeoutMs: 60_000,
    });
    expect(JSON.parse(json.stdout)).not.toHaveProperty('outsideThisApply');

    // A run whose other jobs are all done: nothing to say of them.
    const fine = join(dir, 'fine.yaml');
    await writeFile(
      fine,
      `version: 1
name: fine
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: latte
    prompt: A watercolor advertisement of a latte on a wooden table [[one-image]]
  - id: tea
    prompt: A watercolor advertisement of a tea on a wooden table [[one-image]]
`,
    );
    const fineWhere = [
      '--run',
      'day-1',
      '--state-dir',
      join(dir, 'state'),
      '--output',
      join(dir, 'fine-out'),
    ];
    const day = await runCli(['apply', fine, ...fineWhere, ...FAST_YES], { env, timeoutMs: 60_000 });
    expect(day.code, day.stderr).toBe(0);
    const again = await runCli(
      ['apply', fine, ...fineWhere, '--only', 'tea', '--replace', 'tea', '--json', ...FAST_YES],
      {
        env,
        timeoutMs: 60_000,
      },
    );
    expect(again.code, again.stderr).toBe(0);
    expect((JSON.parse(again.stdout) as { outsideThisApply?: unknown }).outsideThisApply).toMatchObject({
      jobs: 1,
      done: 1,
    });
    const text = await runCli(['apply', fine, ...fineWhere, '--only', 'tea', ...FAST_YES], {
      env,
      timeoutMs: 60_000,
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('✓ All 1 jobs done.');
    expect(text.stdout).not.toContain('Not done outside this apply');
  }, 90_000);
});
