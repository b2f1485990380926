import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import {
  checkWrittenFlags,
  joinNegativeValues,
  tidyHelpOptions,
  writtenFlags,
} from '../../../src/cli/cac-adapter.js';
import { statusCommand } from '../../../src/cli/commands/status.js';
import { startSimulator } from '../../../src/simulator/index.js';
import type { Simulator } from '../../../src/simulator/types.js';

const DEMO = 'pipelines/demo.yaml';

const run = runInProcess;

describe('option rules (issue #7.7)', () => {
  let simulator: Simulator;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: 0.01 });
    env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
  });
  afterAll(() => simulator.close());

  const requests = () => Object.values(simulator.stats().requests).reduce((sum, n) => sum + n, 0);

  it.each([
    [['apply', DEMO, '--concurrency', '8'], '--concurrency expects an integer from 1 to 4, received 8.'],
    [['apply', DEMO, '--job-deadline', '0'], '--job-deadline expects a number of at least 1, received 0.'],
    [['apply', DEMO, '--max-credits', '-5'], '--max-credits expects a number of at least 0, received -5.'],
    [['plan', DEMO, '--max-credits', '-1'], '--max-credits expects a number of at least 0, received -1.'],
    [['apply', DEMO, '--first-poll', '-10'], '--first-poll expects an integer of at least 0, received -10.'],
    [['validate', DEMO, '--max-jobs', '0'], '--max-jobs expects an integer of at least 1, received 0.'],
    [['apply', DEMO, '--poll-interval', 'soon'], '--poll-interval expects milliseconds'],
    [['apply', DEMO, '--state-dri', 'x'], 'Unknown option `--state-dri` for `runner apply`.'],
  ])('refuses %j with exit 2 before any request', async (argv, message) => {
    const before = requests();
    const result = await run(argv, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain('internal error');
    expect(requests()).toBe(before);
  });

  it('suggests the flag the user meant, by its written name', async () => {
    const result = await run(['apply', DEMO, '--state-dri', 'x'], env);
    expect(result.stderr).toContain('Did you mean `--state-dir`?');
    expect(result.stderr).not.toContain('stateDri');
  });

  it('warns about a global flag the command ignores, and still runs', async () => {
    const result = await run(['status', DEMO, '--simulate', '--state-dir', '/nonexistent-runner-state'], env);
    expect(result.stderr).toContain('--simulate has no effect on `runner status`; it is ignored.');
    // It ran: the run has no state there, which status reports (exit 1), not a usage error (exit 2).
    expect(result.stderr).toContain('has no state');
    expect(result.code).toBe(1);
  });

  it('refuses a poll interval under a second against the real service, naming the unit', async () => {
    const result = await run(['apply', DEMO, '--poll-interval', '5'], {
      MEDIAGEN_API_KEY: 'k',
      MEDIAGEN_BASE_URL: 'https://media.example.invalid/api/v2',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--poll-interval is in milliseconds');
    expect(result.stderr).toContain('--poll-interval 5000');
  });
});

describe('flag helpers', () => {
  it('reads written flags up to a bare --', () => {
    expect(writtenFlags(['apply', 'f', '--state-dir=x', '-yh', '--', '--not-a-flag'])).toEqual([
      'state-dir',
      'y',
      'h',
    ]);
  });

  it('gives a negative number to the value flag before it, and only to one', () => {
    const declared = [{ rawName: '--max-credits <n>' }, { rawName: '--yes, -y' }];
    expect(joinNegativeValues(['--max-credits', '-5', 'f'], declared)).toEqual(['--max-credits=-5', 'f']);
    expect(joinNegativeValues(['--yes', '-5'], declared)).toEqual(['--yes', '-5']);
    expect(joinNegativeValues(['--max-credits', '-x'], declared)).toEqual(['--max-credits', '-x']);
  });

  it('accepts a negated flag and its positive form', () => {
    const check = (argv: string[]) =>
      checkWrittenFlags({
        command: 'apply',
        argv,
        commandOptions: [{ rawName: '--no-download' }],
        globalOptions: [{ rawName: '--no-color' }],
      });
    expect(() => check(['--no-download', '--download', '--color'])).not.toThrow();
    expect(() => check(['--downlaod'])).toThrow('Unknown option `--downlaod`');
  });

  it('tidies help lines', () => {
    const body = [
      '  --no-download  Record URLs (default: true)',
      '  --log-file <f>  Logs ',
      '  --json  J',
    ].join('\n');
    expect(tidyHelpOptions(statusCommand.globals, body)).toBe(
      ['  --no-download  Record URLs', '  --json  J'].join('\n'),
    );
  });
});

describe('--log-file on commands other than apply', () => {
  it('records the client requests of plan', async () => {
    const { mkdtemp, readFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const simulator = await startSimulator({ timeScale: 0.01 });
    try {
      const log = join(await mkdtemp(join(tmpdir(), 'runner-log-')), 'plan.log');
      const env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
      const result = await run(['plan', DEMO, '--log-file', log, '--state-dir', join(log, '..', 's')], env);
      expect(result.code).toBe(0);
      const text = await readFile(log, 'utf8');
      expect(text).toMatch(/"type":"request".*"path":"\/models"/);
      expect(text).not.toContain(simulator.apiKey);
    } finally {
      await simulator.close();
    }
  });
});
