import { createHash } from 'node:crypto';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator, SimulatorOptions } from '../../src/simulator/types.js';
import { runCli } from './run-cli.js';
import { FAST_YES } from './apply-fixtures.js';

const TIME_SCALE = 0.005;
/** Polling scaled like the simulator, so a 45 s job (0.225 s here) is followed at the real policy's pace. */

interface StatusJson {
  schemaVersion: number;
  totals: Record<string, number>;
  jobs: {
    id: string;
    status: string;
    attempts: number;
    failureKind?: string;
    files: { file: string; sha256: string }[];
  }[];
}

describe('runner apply (built binary against the simulator)', () => {
  let simulator: Simulator | undefined;
  afterEach(async () => {
    await simulator?.close();
    simulator = undefined;
  });

  async function setup(manifest: string, options: SimulatorOptions = {}) {
    simulator = await startSimulator({
      timeScale: TIME_SCALE,
      // The runner re-sends an unanswered create for 270 s of real time: keep the key window longer.
      idempotencyWindowMs: 300_000 / TIME_SCALE,
      ...options,
    });
    const dir = await mkdtemp(join(tmpdir(), 'runner-apply-'));
    const file = join(dir, 'pipeline.yaml');
    await writeFile(file, manifest);
    const env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
    const status = async () =>
      JSON.parse((await runCli(['status', file, '--json'], { env })).stdout) as StatusJson;
    return { dir, file, env, simulator, status };
  }

  it('runs a matrix of image jobs and a video job, downloads every result, and pays nothing on a re-run', async () => {
    const {
      dir,
      file,
      env,
      simulator: sim,
      status,
    } = await setup(`version: 1
name: mixed
jobs:
  - id: "img-{{ subject }}-{{ style }}"
    model: chatgpt-image-sangtao
    matrix: { subject: [fox, owl, bear], style: [ink, oil] }
    prompt: A detailed {{ style }} painting of a {{ subject }} in a snowy forest at dusk
  - id: teaser
    kind: voiceover-video
    model: voiceover-standard
    prompt: A short teaser about winter animals in the forest
    params: { script: "Winter is coming to the forest.", sceneCount: 2 }
`);
    const first = await runCli(['apply', file, ...FAST_YES], { env });
    expect(first.stderr).not.toContain('error');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('All 7 jobs done.');
    expect(first.stdout).toContain(`Results: ${join(dir, 'runner-output', 'mixed')}`);
    expect(sim.stats().jobsCreated).toBe(7);
    expect(sim.stats().maxRunningAtOnce).toBeLessThanOrEqual(4);

    const view = await status();
    expect(view.schemaVersion).toBe(1);
    expect(view.jobs.map((job) => job.status)).toEqual(Array(7).fill('done'));
    for (const job of view.jobs) {
      expect(job.files.length).toBeGreaterThan(0);
      for (const saved of job.files) {
        const bytes = await readFile(saved.file);
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(saved.sha256);
      }
    }

    const charged = sim.stats().creditsCharged;
    const again = await runCli(['apply', file, ...FAST_YES, '--json'], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      schemaVersion: 1,
      exitReason: 'ok',
      creditsSpent: 0,
      counts: { total: 7, done: 7 },
    });
    expect(sim.stats().jobsCreated).toBe(7);
    expect(sim.stats().creditsCharged).toBe(charged);
  });

  it('retries GENERATION_TIMEOUT, fails PROMPT_UNCLEAR once with advice (exit 1), and never re-sends it', async () => {
    const {
      file,
      env,
      simulator: sim,
      status,
    } = await setup(`version: 1
name: failures
defaults: { model: chatgpt-image-sangtao }
retry: { backoffSeconds: 0.05 }
jobs:
  - id: flaky
    prompt: "A lighthouse on a cliff during a storm at night [[fail-once:GENERATION_TIMEOUT]]"
  - id: vague
    prompt: "A lighthouse on a cliff during a storm at night [[fail:PROMPT_UNCLEAR]]"
  - id: fine
    prompt: A lighthouse on a cliff on a calm summer morning
`);
    const result = await runCli(['apply', file, ...FAST_YES], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/retry\s+flaky: GENERATION_TIMEOUT, attempt 2/);
    expect(result.stderr).toMatch(/failed\s+vague: PROMPT_UNCLEAR: .*change the prompt/);
    expect(result.stdout).toContain('2 of 3 jobs done.');
    const byId = Object.fromEntries((await status()).jobs.map((job) => [job.id, job]));
    expect(byId.flaky).toMatchObject({ status: 'done', attempts: 2 });
    expect(byId.vague).toMatchObject({ status: 'failed', attempts: 1, failureKind: 'PROMPT_UNCLEAR' });
    expect(sim.stats().jobsCreated).toBe(4);

    const again = await runCli(['apply', file, ...FAST_YES], { env });
    expect(again.code).toBe(1);
    expect(sim.stats().jobsCreated).toBe(4);
    const text = await runCli(['status', file], { env });
    // The job's line names the kind, the advice under it what to do (#33.11, 0aa007d).
    expect(text.stdout).toMatch(
      /vague \(failed, PROMPT_UNCLEAR\): .*\n\s+The description is too vague: change the prompt\./,
    );
  });

  it('follows the manifest retry block: a kind made retryable is retried, maxAttempts bounds it', async () => {
    const {
      file,
      env,
      simulator: sim,
      status,
    } = await setup(`version: 1
name: overrides
defaults: { model: chatgpt-image-sangtao }
retry:
  maxAttempts: 2
  backoffSeconds: 0.05
  failureKinds: { CONTENT_REJECTED: retry }
jobs:
  - id: once
    prompt: "A crowded night market full of lanterns and food stalls [[fail-once:CONTENT_REJECTED]]"
  - id: always
    prompt: "A crowded night market full of lanterns and noodle stands [[fail:CONTENT_REJECTED]]"
`);
    const result = await runCli(['apply', file, ...FAST_YES, '--json'], { env });
    expect(result.code).toBe(1);
    // A script reading `apply --json` learns why a job is not done without asking `status`.
    const summary = JSON.parse(result.stdout) as {
      jobs: { id: string; outcome: string; failureKind?: string; error?: string }[];
    };
    const always = summary.jobs.find((job) => job.id === 'always');
    expect(always).toMatchObject({ outcome: 'failed', failureKind: 'CONTENT_REJECTED' });
    expect(always?.error).toMatch(/\S/);
    expect(summary.jobs.find((job) => job.id === 'once')).not.toHaveProperty('failureKind');
    const byId = Object.fromEntries((await status()).jobs.map((job) => [job.id, job]));
    expect(byId.once).toMatchObject({ status: 'done', attempts: 2 });
    expect(byId.always).toMatchObject({ status: 'failed', attempts: 2, failureKind: 'CONTENT_REJECTED' });
    expect(sim.stats().jobsCreated).toBe(4);
  });

  it('refuses a plan over the budget or the available credit before creating any job (exit 3)', async () => {
    const manifest = (budget: number) => `version: 1
name: costly
budget: ${budget}
jobs:
  - id: "v-{{ n }}"
    kind: voiceover-video
    model: voiceover-standard
    matrix: { n: [1, 2, 3] }
    prompt: A short film about the sea, part {{ n }}
    params: { script: "The sea, part {{ n }}.", sceneCount: 5 }
`;
    const over = await setup(manifest(10));
    const refused = await runCli(['apply', over.file, ...FAST_YES], { env: over.env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('No job was created.');
    // The manifest's budget binds: raise it (--max-credits can only lower it).
    expect(refused.stderr).toContain('Raise `budget` in the manifest');
    expect(over.simulator.stats().jobsCreated).toBe(0);
    await over.simulator.close();

    const poor = await setup(manifest(1000), { account: { freeCredit: 20, purchasedCredit: 0 } });
    const short = await runCli(['apply', poor.file, ...FAST_YES], { env: poor.env });
    expect(short.code).toBe(3);
    expect(short.stderr).toContain('Top up');
    expect(poor.simulator.stats().jobsCreated).toBe(0);

    const capped = await runCli(['apply', poor.file, ...FAST_YES, '--max-credits', '5'], { env: poor.env });
    expect(capped.code).toBe(3);
    // --max-credits binds here, below the manifest's budget of 1000.
    expect(capped.stderr).toContain("Pass a higher --max-credits (up to the manifest's budget of 1000)");
    expect(poor.simulator.stats().jobsCreated).toBe(0);
  });

  it('stops at once with exit 4 when the key is revoked mid-run, keeping every created job in the state', async () => {
    const {
      file,
      env,
      simulator: sim,
      status,
    } = await setup(
      `version: 1
name: revoked
defaults: { model: chatgpt-image-sangtao }
jobs:
  - id: "img-{{ n }}"
    matrix: { n: [1, 2, 3, 4, 5, 6, 7, 8] }
    prompt: A detailed watercolor of harbour boat number {{ n }} at sunrise
`,
      { jobDurationMs: { image: 200_000 } },
    );
    const running = runCli(['apply', file, ...FAST_YES], { env });
    while (sim.stats().jobsCreated < 4) await new Promise((resolve) => setTimeout(resolve, 20));
    sim.revokeApiKey();
    const result = await running;
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('401');
    const created = sim.stats().jobs.map((job) => job.jobId);
    const recorded = (await status()).jobs.flatMap((job) => (job.status === 'pending' ? [] : [job.id]));
    expect(recorded.length).toBe(created.length);
  });
});
