import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator, SimulatorOptions } from '../../src/simulator/types.js';
import { FAST_YES, isRunIndexFile } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

/** The built CLI against the simulator's dialects (issues #7, #11): what a user sees. */

const TIME_SCALE = 0.005;

const imageManifest = (count: number, model = 'chatgpt-image-sangtao', kind = 'image') => `version: 1
name: dialects
jobs:
  - id: "shot-{{ n }}"
    kind: ${kind}
    model: ${model}
    matrix: { n: [${Array.from({ length: count }, (_, i) => i + 1).join(', ')}] }
    prompt: A detailed studio photograph of coffee cup number {{ n }} on a marble counter
`;

describe('the CLI against service dialects', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  async function setup(manifest: string, options: SimulatorOptions = {}) {
    simulator = await startSimulator({ timeScale: TIME_SCALE, ...options });
    const dir = await mkdtemp(join(tmpdir(), 'runner-dialects-'));
    const file = join(dir, 'pipeline.yaml');
    await writeFile(file, manifest);
    const env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
    return { dir, file, env, sim: simulator };
  }

  it('shows a balance that has only the older `credits`, never its apiKey (#7.8)', async () => {
    const { env } = await setup(imageManifest(1), {
      dialect: { balance: 'credits-only', numbersAsStrings: true },
      legacyApiKey: 'legacy-e2e-secret-0001',
    });
    const text = await runCli(['balance'], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toBe('available  1200\n');
    const json = await runCli(['balance', '--json'], { env });
    expect(JSON.parse(json.stdout)).toMatchObject({ availableCredit: 1200 });
    expect(json.stdout + json.stderr + text.stderr).not.toContain('legacy-e2e-secret-0001');
  });

  it('counts the allowance of a quota named after the model, so a run the plan covers is not refused (#7.10)', async () => {
    const { file, env } = await setup(imageManifest(3), {
      dialect: { quotaCapability: 'model-slug' },
      account: { freeCredit: 0, purchasedCredit: 0, subscriptionImageQuota: 5 },
    });
    const plan = await runCli(['plan', file, '--format', 'json'], { env });
    expect(plan.code).toBe(0);
    const report = JSON.parse(plan.stdout) as {
      subscription: { imageJobsCovered: number; imageQuotaRemaining: number };
      verdict: { status: string };
      credits: { needed: number };
    };
    expect(report.subscription).toMatchObject({ imageJobsCovered: 3, imageQuotaRemaining: 5 });
    expect(report.credits.needed).toBe(0);
    expect(report.verdict.status).toBe('fits');
  });

  it('says a video model cannot run as any kind, not "kind image expects category image" (#7.13)', async () => {
    const { file, env } = await setup(imageManifest(1, 'veo-lite'));
    const result = await runCli(['validate', file], { env });
    expect(result.code).toBe(2);
    expect(result.stdout + result.stderr).toContain(
      'model "veo-lite" is a "video" model, and no job kind of the runner can run "video" models',
    );
  });

  it('hints at the base URL when one without /api/v2 answers 404 (#7.13)', async () => {
    const { env, sim } = await setup(imageManifest(1));
    const origin = sim.baseUrl.replace(/\/api\/v2$/, '');
    const result = await runCli(['balance'], { env: { ...env, MEDIAGEN_BASE_URL: origin } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('HTTP 404');
    expect(result.stderr).toContain(`does not end in /api/v2: try --base-url ${sim.baseUrl}`);
  });

  it('refuses result files over --max-download-size and keeps no partial file (#11.5)', async () => {
    const { dir, file, env } = await setup(imageManifest(1));
    const output = join(dir, 'out');
    const result = await runCli(
      ['apply', file, ...FAST_YES, '--output', output, '--max-download-size', '16'],
      {
        env,
      },
    );
    expect(result.code).toBe(1);
    expect(result.stdout + result.stderr).toContain('larger than --max-download-size 16 bytes');
    // No result and no partial file: only the run's report and index, which record the refusal.
    const written = await readdir(output).catch(() => []);
    expect(written.filter((file) => !isRunIndexFile(file))).toEqual([]);
  });

  it('follows a job that create and poll answers name `id` instead of `jobId`, paying once each (#20.11)', async () => {
    const { dir, file, env, sim } = await setup(imageManifest(2), { dialect: { jobIdField: 'id' } });
    const result = await runCli(['apply', file, ...FAST_YES, '--output', join(dir, 'out')], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(sim.stats().jobsCreated).toBe(2);
    expect(result.stdout + result.stderr).not.toMatch(/unexpected|uncertain/i);
    const again = await runCli(['apply', file, ...FAST_YES, '--output', join(dir, 'out')], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(sim.stats().jobsCreated).toBe(2);
  });

  it('rejects a --dialect it cannot read with exit 2', async () => {
    const result = await runCli(['simulate', '--port', '0', '--dialect', 'balance=maybe']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--dialect: cannot read "balance=maybe"');
  });
});
