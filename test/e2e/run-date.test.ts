import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { systemClock } from '../../src/clock.js';
import { openRunState } from '../../src/state/backends/folder/open-run-state.js';
import { runCli } from './run-cli.js';

/**
 * A nightly run started before midnight and looked at the next day: `status` and `report` must render
 * `{{ date }}` as the day the run started, like apply does, or every job of the run shows as "pending"
 * beside state they no longer match.
 */
describe('read-only commands use the run date', () => {
  const started = Date.UTC(2026, 10, 20, 23, 50);
  const startedDay = '2026-11-20';
  let dir: string;
  let manifest: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-run-date-'));
    manifest = join(dir, 'nightly.yaml');
    await writeFile(
      manifest,
      `version: 1
name: nightly
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: "cover-{{ date }}"
    prompt: A watercolor cover of the day {{ date }} on a wooden table
`,
    );
    const clock: Clock = { ...systemClock, now: () => started };
    const state = await openRunState({ manifestFile: manifest, pipeline: 'nightly', runId: 'n1', clock });
    const id = `cover-${startedDay}`;
    await state.journal.append({
      type: 'run',
      runId: 'n1',
      pipeline: 'nightly',
      pid: process.pid,
      manifestFile: manifest,
    });
    await state.journal.append({ type: 'intent', id, attempt: 1, payloadHash: 'h' });
    await state.journal.append({ type: 'created', id, attempt: 1, jobId: 'job_1' });
    await state.journal.append({ type: 'completed', id, attempt: 1, resultUrls: [] });
    await state.close();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('status shows the run’s own jobs as done, none pending', async () => {
    const result = await runCli(['status', manifest, '--run', 'n1', '--json']);
    expect(result.code, result.stderr).toBe(0);
    const view = JSON.parse(result.stdout) as { jobs: { id: string; status: string }[] };
    expect(view.jobs.map((job) => [job.id, job.status])).toEqual([[`cover-${startedDay}`, 'done']]);
  });

  it('plan prices the run’s own jobs, not jobs of today’s date', async () => {
    const catalog = fileURLToPath(new URL('../fixtures/plan-golden/catalog.json', import.meta.url));
    const result = await runCli([
      'plan',
      manifest,
      '--run',
      'n1',
      '--offline',
      '--catalog',
      catalog,
      '--format',
      'json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { jobList: { id: string; state: string }[] };
    // The journaled hash is not this manifest's, so the job counts as changed: but it is the same job.
    expect(report.jobList.map((job) => [job.id, job.state])).toEqual([[`cover-${startedDay}`, 'changed']]);
  });

  it('plan gives the same report streamed and whole (--out-plan), both with the run’s date', async () => {
    const catalog = fileURLToPath(new URL('../fixtures/plan-golden/catalog.json', import.meta.url));
    const flags = ['--run', 'n1', '--offline', '--catalog', catalog, '--format', 'json'];
    const streamed = await runCli(['plan', manifest, ...flags]);
    const whole = await runCli(['plan', manifest, ...flags, '--out-plan', join(dir, 'saved.plan.json')]);
    expect(streamed.code, streamed.stderr).toBe(0);
    expect(streamed.stdout).toBe(whole.stdout);
    expect(streamed.stdout).toContain(`cover-${startedDay}`);
  });

  it('report renders the prompt with the run’s date', async () => {
    const out = join(dir, 'report.html');
    const result = await runCli(['report', manifest, '--run', 'n1', '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const { readFile } = await import('node:fs/promises');
    const html = await readFile(out, 'utf8');
    expect(html).toContain(`cover of the day ${startedDay}`);
  });

  // Last: it adds to the run's state.
  it('apply resumes the run with the run’s date: the job it sends is the run’s own', async () => {
    const out = join(dir, 'out');
    const result = await runCli([
      'apply',
      manifest,
      '--run',
      'n1',
      '--simulate',
      '--state-dir',
      join(dir, '.runner'),
      '--output',
      out,
      '--yes',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('1 of 1 jobs to run');
    const { readFile } = await import('node:fs/promises');
    const index = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as {
      results: { id: string; prompt: string }[];
    };
    expect(index.results.map((row) => [row.id, row.prompt])).toEqual([
      [`cover-${startedDay}`, `A watercolor cover of the day ${startedDay} on a wooden table`],
    ]);
  });
});
