import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsIndex } from '../../src/report/results-index.js';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { runCli } from './run-cli.js';
import { FAST_YES } from './apply-fixtures.js';

const TIME_SCALE = 0.005;

/**
 * #33.11: a night with a failed job exited 1 from apply and 0 from status, and the report said
 * "contact support" where status advised `--retry-failed`. One verdict (src/state/run-verdict.ts) and
 * one piece of advice (src/execute/job-advice.ts) for apply, status and the report.
 */
describe('apply, status and the report judge and advise alike', () => {
  let simulator: Simulator;
  let env: Record<string, string>;
  let dir: string;
  let manifest: string;

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: TIME_SCALE, idempotencyWindowMs: 300_000 / TIME_SCALE });
    env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
    dir = await mkdtemp(join(tmpdir(), 'runner-verdict-'));
    manifest = join(dir, 'verdict.yaml');
    await writeFile(
      manifest,
      `version: 1
name: verdict
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: fine
    prompt: A watercolor advertisement of a latte on a wooden table
  - id: broken
    prompt: A watercolor advertisement of a mocha on a wooden table [[fail:SESSION_EXPIRED]]
`,
    );
  });
  afterAll(() => simulator.close());

  it('a failed job exits 1 from apply and from status, with the advice the results index gives', async () => {
    const apply = await runCli(['apply', manifest, ...FAST_YES, '--run', 'n1'], { env });
    expect(apply.code, apply.stderr).toBe(1);

    const status = await runCli(['status', manifest, '--run', 'n1'], { env });
    expect(status.code, status.stderr).toBe(1);
    const json = await runCli(['status', manifest, '--run', 'n1', '--json'], { env });
    expect(json.code, json.stderr).toBe(1);

    const index = JSON.parse(
      await readFile(join(dir, 'runner-output', 'verdict', 'n1', 'results.json'), 'utf8'),
    ) as ResultsIndex;
    const advice = index.results.find((row) => row.id === 'broken')?.advice ?? '';
    expect(advice).toBe(
      `A problem on the service side: contact support. Once it is solved, \`runner apply ${manifest} --run n1 --retry-failed\` re-sends it.`,
    );
    expect(status.stdout).toContain(`    ${advice}`);

    // `runner report` writes the same advice from the state.
    const report = await runCli(['report', manifest, '--run', 'n1', '--out', join(dir, 'again.html')], {
      env,
    });
    expect(report.code, report.stderr).toBe(0);
    const page = await readFile(join(dir, 'again.html'), 'utf8');
    expect(page).toContain(JSON.stringify(advice).slice(1, -1));
  });

  it('status exits 0 once every job is done, 1 while one is not sent yet', async () => {
    const fine = join(dir, 'fine.yaml');
    await writeFile(
      fine,
      `version: 1
name: fine
defaults: { kind: image, model: chatgpt-image-sangtao }
jobs:
  - id: latte
    prompt: A watercolor advertisement of a latte on a wooden table
  - id: mocha
    prompt: A watercolor advertisement of a mocha on a wooden table
`,
    );
    const part = await runCli(['apply', fine, ...FAST_YES, '--only', 'latte'], { env });
    expect(part.code, part.stderr).toBe(0);
    expect((await runCli(['status', fine], { env })).code).toBe(1);
    const rest = await runCli(['apply', fine, ...FAST_YES], { env });
    expect(rest.code, rest.stderr).toBe(0);
    const status = await runCli(['status', fine], { env });
    expect(status.code, status.stderr).toBe(0);
  });
});
