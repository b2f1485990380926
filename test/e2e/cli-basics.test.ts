import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import { runCli } from './run-cli.js';

describe('runner CLI basics (built binary)', () => {
  let simulator: Simulator;
  let env: Record<string, string>;

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: 0.01 });
    env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
  });
  afterAll(() => simulator.close());

  it('prints help listing every command and the exit codes', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['models', 'balance', 'validate', 'plan', 'apply', 'status', 'simulate']) {
      expect(result.stdout).toContain(command);
    }
    expect(result.stdout).toContain('130  interrupted');
  });

  it('prints help for a command', async () => {
    const result = await runCli(['apply', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--resend-uncertain');
  });

  it("keeps the environment and exit codes out of a command's help, in `runner help TOPIC` (#33.13)", async () => {
    const apply = await runCli(['apply', '--help']);
    expect(apply.stdout).not.toContain('130  interrupted');
    expect(apply.stdout).not.toContain('RUNNER_STATE_URL    state in PostgreSQL');
    expect(apply.stdout).toContain('`runner help environment`');
    expect(apply.stdout).toContain('`runner help exit-codes`');
    const codes = await runCli(['help', 'exit-codes']);
    expect(codes.code).toBe(0);
    expect(codes.stdout).toContain('130  interrupted');
    const environment = await runCli(['help', 'environment']);
    expect(environment.code).toBe(0);
    expect(environment.stdout).toContain('RUNNER_STATE_URL');
    const status = await runCli(['help', 'status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toBe((await runCli(['status', '--help'])).stdout);
    const typo = await runCli(['help', 'exitcodes']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean `runner help exit-codes`?');
  });

  it('prints the version from package.json', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\d+\.\d+\.\d+/);
  });

  it('rejects an unknown command with exit 2 and a suggestion', async () => {
    const result = await runCli(['bogus']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown command `bogus`');
    const typo = await runCli(['modles']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('Did you mean `runner models`?');
  });

  it('rejects an unknown option with exit 2', async () => {
    const result = await runCli(['balance', '--frobnicate'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown option `--frobnicate`');
  });

  it("lists the catalog with each model's input form", async () => {
    const result = await runCli(['models'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('chatgpt-image-sangtao');
    expect(result.stdout).toMatch(/resolution: select, one of "1K", "2K"/);
    // A model of a category no job kind runs is marked; a runnable one is not.
    const block = (slug: string) => result.stdout.split('\n\n').find((text) => text.startsWith(slug)) ?? '';
    expect(block('inpaint-edit')).toContain('runner cannot run "inpaint" models');
    expect(block('chatgpt-image-sangtao')).not.toContain('runner cannot run');
  });

  it('filters the catalog by category and prints JSON', async () => {
    const result = await runCli(['models', '--category', 'image', '--json'], { env });
    expect(result.code).toBe(0);
    const models = JSON.parse(result.stdout) as { category: string }[];
    expect(models.length).toBeGreaterThan(0);
    expect(models.every((model) => model.category === 'image')).toBe(true);
  });

  it('rejects an unknown category with exit 2', async () => {
    const result = await runCli(['models', '--category', 'sculpture'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Unknown category "sculpture"');
  });

  it('shows the balance without the API key or the legacy key', async () => {
    const result = await runCli(['balance', '--json'], { env });
    expect(result.code).toBe(0);
    const balance = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(balance).toHaveProperty('availableCredit');
    expect(balance.schemaVersion).toBe(1);
    expect(balance).not.toHaveProperty('apiKey');
    expect(result.stdout + result.stderr).not.toContain(simulator.apiKey);
    expect(result.stdout + result.stderr).not.toMatch(/legacy-/);
  });

  it('works against an in-process simulator with --simulate', async () => {
    const models = await runCli(['models', '--simulate']);
    expect(models.code).toBe(0);
    expect(models.stdout).toContain('chatgpt-image-sangtao');
    const balance = await runCli(['balance', '--simulate']);
    expect(balance.code).toBe(0);
    expect(balance.stdout).toMatch(/available\s+\d+/);
    expect(balance.stdout).not.toMatch(/legacy-|sim-key/);
  });

  it('exits 4 with a clear message when no API key is configured', async () => {
    const result = await runCli(['balance'], { env: { MEDIAGEN_BASE_URL: simulator.baseUrl } });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('MEDIAGEN_API_KEY');
  });

  it('exits 4 on a wrong API key and does not echo it', async () => {
    const wrongKey = 'wrong-key-123456';
    const result = await runCli(['balance'], {
      env: { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: wrongKey },
    });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('401');
    expect(result.stderr).not.toContain(wrongKey);
  });

  it('exits 1 with a clear message when the service is unreachable', async () => {
    const result = await runCli(['balance'], {
      env: { MEDIAGEN_BASE_URL: 'http://127.0.0.1:9/api/v2', MEDIAGEN_API_KEY: 'k' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('GET /account/balance');
  });
});
