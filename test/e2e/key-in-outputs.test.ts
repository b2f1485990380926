import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { makeWorkDir } from './apply-fixtures.js';
import { runCli } from './run-cli.js';

const TIME_SCALE = 0.005;
const FAST = ['--yes', '--poll-interval', '15-25', '--first-poll', '50'];
const API_KEY = 'sk-ECHOCHECK-api-5e1d0c9b7a2f4e83';

/** A key typed into `--var` reaches the saved plan only redacted, like every other output (#24.5). */
describe('the API key in a saved plan', () => {
  let simulator: Simulator;
  let dir: string;
  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: TIME_SCALE, apiKey: API_KEY });
    dir = await makeWorkDir('key-plan');
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('is redacted in plan --out-plan, and applying that plan pays each job once', async () => {
    const file = join(dir, 'pipeline.yaml');
    await writeFile(
      file,
      `version: 1
name: key-plan
vars:
  brand: Acme
jobs:
  - id: poster
    kind: image
    model: chatgpt-image-sangtao
    prompt: A detailed poster for {{ brand }} coffee on a marble counter at dawn
`,
    );
    const env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: API_KEY };
    const planFile = join(dir, 'saved.plan.json');
    const stateDir = join(dir, 'state');
    const plan = await runCli(
      ['plan', file, '--var', `brand=${API_KEY}`, '--state-dir', stateDir, '--out-plan', planFile],
      { env },
    );
    expect(plan.code, plan.stderr).toBe(0);
    const saved = await readFile(planFile, 'utf8');
    expect(saved).not.toContain(API_KEY);
    expect(saved).toContain('[REDACTED]');
    expect(plan.stdout + plan.stderr).not.toContain(API_KEY);

    const apply = await runCli(
      ['apply', planFile, '--state-dir', stateDir, ...FAST, '--output', join(dir, 'out')],
      {
        env,
      },
    );
    expect(apply.code, apply.stderr).toBe(0);
    expect(apply.stdout + apply.stderr).not.toContain(API_KEY);
    expect(simulator.stats().jobsCreated).toBe(1);
  });
});
