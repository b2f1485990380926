import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayloadSnapshot } from '../../src/plan/payload-diff.js';
import { hashPayload, type HashablePayload } from '../../src/catalog/payload-hash.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { FAST_YES, makeWorkDir, simulatorEnv, writeImageMatrixManifest } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/**
 * `runner plan` streams its jobs unless `--out-plan` or `--show payloads` asks for the whole plan; with
 * a previous run's state (done, changed and new jobs, a balance and a subscription allowance) both
 * paths must print the same report, byte for byte, in every format and with targeting flags.
 */
describe('plan: streamed and whole-plan reports agree (issue #8)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let file: string;

  beforeAll(async () => {
    simulator = await startSimulator({
      timeScale: 0.005,
      idempotencyWindowMs: 60_000_000,
      account: { subscriptionImageQuota: 6 },
    });
    env = simulatorEnv(simulator);
    dir = await makeWorkDir('plan-stream');
    ({ file } = await writeImageMatrixManifest(dir, {
      name: 'stream',
      subjects: ['fox', 'owl'],
      styles: ['ink', 'oil'],
    }));
    const applied = await runCli(['apply', file, '--output', join(dir, 'out'), ...FAST_YES], {
      env,
      cwd: dir,
    });
    expect(applied.code).toBe(0);
    // Night two: oil jobs as they were (done), ink jobs with another prompt (changed), a new subject.
    const prompt = 'A detailed {{ style }} picture of a {{ subject }} standing in a misty forest at dawn';
    const text = [
      'version: 1',
      'name: stream',
      'defaults: { kind: image, model: chatgpt-image-sangtao }',
      'jobs:',
      "  - id: 'img-{{ subject }}-{{ style }}'",
      '    matrix: { subject: [fox, owl], style: [oil] }',
      `    prompt: ${prompt}`,
      '    params: { format: png }',
      "  - id: 'img-{{ subject }}-{{ style }}'",
      '    matrix: { subject: [fox, owl], style: [ink] }',
      `    prompt: ${prompt}, under a pale winter sky`,
      "    params: { format: png, aspectRatio: '16:9' }",
      "  - id: 'img-{{ subject }}-{{ style }}'",
      '    matrix: { subject: [heron], style: [ink, oil] }',
      `    prompt: ${prompt}`,
      '    params: { format: png }',
      '',
    ].join('\n');
    await writeFile(file, text);
  }, 120_000);
  afterAll(() => simulator.close());

  const cases = [
    ['--format', 'json'],
    ['--format', 'markdown'],
    ['--format', 'text'],
    ['--format', 'json', '--only', 'img-*-ink', '--replace', 'img-fox-ink'],
    ['--format', 'json', '--exclude', 'img-heron-*', '--max-credits', '5'],
  ].map((flags) => ({ name: flags.join(' '), flags }));
  it.each(cases)('plan $name', async ({ flags }) => {
    const streamed = await runCli(['plan', file, ...flags], { env, cwd: dir });
    const whole = await runCli(['plan', file, ...flags, '--out-plan', join(dir, 'saved.plan.json')], {
      env,
      cwd: dir,
    });
    expect(sameFetch(streamed.stdout)).toBe(sameFetch(whole.stdout));
    expect(streamed.code).toBe(whole.code);
    if (flags.length === 2 && flags[1] === 'json') {
      const report = JSON.parse(streamed.stdout) as {
        jobs: { byState: Record<string, number> };
        changes: unknown[];
        subscription: { imageJobsCovered: number };
      };
      expect(report.jobs.byState).toMatchObject({ new: 2, changed: 2, done: 2 });
      expect(report.changes).toHaveLength(2);
      expect(report.subscription.imageJobsCovered).toBeGreaterThan(0);
    }
  });

  // Last: it rewrites the run's journal as releases up to 0.1.0 wrote it.
  it('both take jobs journaled with legacy hashes (defaults folded in) as the same jobs', async () => {
    const runDir = join(dir, '.runner', 'stream', 'default');
    const journalFile = join(runDir, 'journal.jsonl');
    const lines = (await readFile(journalFile, 'utf8')).split('\n');
    let rewritten = 0;
    const legacy = lines.map((line) => {
      if (line === '') return line;
      const record = JSON.parse(line) as { type: string; payloadHash?: string; payload?: PayloadSnapshot };
      if (record.type !== 'intent' || record.payload === undefined) return line;
      // No local files here: the journaled payload is what was sent, so its hash is the legacy one.
      const payloadHash = hashPayload(record.payload as HashablePayload);
      if (payloadHash !== record.payloadHash) rewritten++;
      return JSON.stringify({ ...record, payloadHash });
    });
    expect(rewritten).toBeGreaterThan(0);
    await writeFile(journalFile, legacy.join('\n'));
    await rm(join(runDir, 'snapshot.jsonl'), { force: true });

    const streamed = await runCli(['plan', file, '--format', 'json'], { env, cwd: dir });
    const whole = await runCli(
      ['plan', file, '--format', 'json', '--out-plan', join(dir, 'saved.plan.json')],
      {
        env,
        cwd: dir,
      },
    );
    expect(sameFetch(streamed.stdout)).toBe(sameFetch(whole.stdout));
    const report = JSON.parse(streamed.stdout) as { jobs: { byState: Record<string, number> } };
    expect(report.jobs.byState).toMatchObject({ new: 2, changed: 2, done: 2 });
  });
});

/** The catalog's fetch time differs between two runs; everything else must not. */
function sameFetch(text: string): string {
  return text.replace(/"fetchedAt": "[^"]*"/g, '"fetchedAt": "…"');
}
