import { PassThrough } from 'node:stream';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import { testCacheEnv } from '../../test-cache-env.js';
import { runCli } from '../../../src/cli/main.js';
import { keepValuesAsWritten, readWrittenValues } from '../../../src/cli/cac-adapter.js';
import { startSimulator } from '../../../src/simulator/index.js';
import type { Simulator } from '../../../src/simulator/types.js';

const DEMO = 'pipelines/demo.yaml';

const run = runInProcess;

describe('empty or odd option values are refused, never replaced (#20.9)', () => {
  let simulator: Simulator;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: 0.01 });
    env = { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: simulator.apiKey };
  });
  afterAll(() => simulator.close());
  const requests = () => Object.values(simulator.stats().requests).reduce((sum, n) => sum + n, 0);

  it.each([
    // An unset $RUN: cac made it run "0", so every night resumed the same run.
    [['apply', DEMO, '--run', ''], '--run expects a value, received an empty one ("").'],
    [['plan', DEMO, '--run', ''], '--run expects a value, received an empty one ("").'],
    [['status', DEMO, '--run', ''], '--run expects a value, received an empty one ("").'],
    [['report', DEMO, '--run', ''], '--run expects a value, received an empty one ("").'],
    [['apply', DEMO, '--run='], '--run expects a value, received an empty one ("").'],
    [['apply', DEMO, '--run', '  '], '--run expects a value, received an empty one ("  ").'],
    // cac made these 0: a zero budget, or the default folders.
    [['apply', DEMO, '--max-credits', ''], '--max-credits expects a value, received an empty one'],
    [['apply', DEMO, '--output', ''], '--output expects a value, received an empty one'],
    [['apply', DEMO, '--state-dir', ''], '--state-dir expects a value, received an empty one'],
    [['runs', DEMO, '--state-dir', ''], '--state-dir expects a value, received an empty one'],
    // A missing value: cac made `--run` "true".
    [['apply', DEMO, '--run'], '--run expects a value; none was given.'],
    [['apply', DEMO, '--run', '--yes'], '--run expects a value; none was given.'],
    // Was rewritten to `__x`, a folder another id could share.
    [['apply', DEMO, '--run', '../x'], '--run expects letters, digits, ".", "_" and "-"'],
    [['status', DEMO, '--run', 'night 1'], 'received "night 1"'],
    [
      ['plan', DEMO, '--sim-time-scale', 'abc'],
      '--sim-time-scale expects a number from 0.0001 to 100, received "abc".',
    ],
  ])('refuses %j with exit 2, before any request', async (argv, message) => {
    const before = requests();
    const result = await run(argv, env);
    expect(result.stderr).toContain(message);
    expect(result.code).toBe(2);
    expect(requests()).toBe(before);
  });

  it('refuses an environment default that is set but empty', async () => {
    const result = await run(['runs', DEMO], { ...env, RUNNER_STATE_DIR: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('RUNNER_STATE_DIR is set but empty.');
    const output = await run(['report', DEMO], { ...env, RUNNER_OUTPUT: ' ' });
    expect(output.code).toBe(2);
    expect(output.stderr).toContain('RUNNER_OUTPUT is set but empty.');
  });

  it('keeps numeric-looking values as written: --state-dir 007 is the folder "007", not 7', async () => {
    // `runs` only reads (it makes no folder); state paths resolve against the process's folder.
    const result = await run(['runs', DEMO, '--state-dir', '007', '--json'], {});
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { stateRoot: string }).stateRoot).toBe(join(process.cwd(), '007'));
  });

  it('takes RUNNER_STATE_DIR as the default of --state-dir; the flag wins', async () => {
    const root = (stdout: string) => (JSON.parse(stdout) as { stateRoot: string }).stateRoot;
    const fromEnv = await run(['runs', DEMO, '--json'], { RUNNER_STATE_DIR: 'from-env' });
    expect(root(fromEnv.stdout)).toBe(join(process.cwd(), 'from-env'));
    const flag = await run(['runs', DEMO, '--json', '--state-dir', 'flag'], { RUNNER_STATE_DIR: 'env' });
    expect(root(flag.stdout)).toBe(join(process.cwd(), 'flag'));
  });

  it('points `plan --json` to `--format json`', async () => {
    const result = await run(['plan', DEMO, '--json'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('JSON output is `--format json` here.');
  });

  it('says "has no effect" for connection flags runs, render and report ignore', async () => {
    for (const command of ['runs', 'render', 'report']) {
      const result = await run([command, DEMO, '--base-url', 'http://127.0.0.1:9/api/v2'], {});
      expect(result.stderr).toContain(`--base-url has no effect on \`runner ${command}\`; it is ignored.`);
    }
    const scale = await run(
      ['validate', DEMO, '--sim-time-scale', '0.5', '--catalog', 'nonexistent.json'],
      {},
    );
    expect(scale.stderr).toContain('--sim-time-scale has no effect without --simulate');
  });

  it('says a saved plan given to validate or plan is a saved plan', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'runner-values-'));
    const file = join(dir, 'plan.json');
    await writeFile(
      file,
      JSON.stringify({ kind: 'runner-plan', schemaVersion: 2, manifest: { path: 'm.yaml' } }),
    );
    for (const command of ['validate', 'plan']) {
      const result = await run([command, file], env);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`${file} is a saved plan`);
      expect(result.stderr).toContain(`runner apply ${file}`);
      expect(result.stderr).toContain(join(dir, 'm.yaml'));
    }
  });
});

describe('readWrittenValues / keepValuesAsWritten', () => {
  const declared = [
    { rawName: '--run <id>', config: { type: [String] } },
    { rawName: '--state-dir <dir>' },
    { rawName: '--report [file]' },
    { rawName: '--yes, -y' },
  ];

  it('reads values as written, up to a bare --', () => {
    const values = readWrittenValues(
      ['--run', '0012', '--state-dir=007', '--run', 'b', '--report', '--yes', '--', '--run', ''],
      declared,
    );
    expect([...values]).toEqual([
      ['run', ['0012', 'b']],
      ['state-dir', ['007']],
    ]);
    const parsed: Record<string, unknown> = { run: ['12', 'b'], stateDir: 7 };
    keepValuesAsWritten(parsed, values, declared);
    expect(parsed).toEqual({ run: ['0012', 'b'], stateDir: '007' });
  });

  it('lets an optional value be left out, but never be empty', () => {
    expect(() => readWrittenValues(['--report', '--yes'], declared)).not.toThrow();
    expect(() => readWrittenValues(['--report', ''], declared)).toThrow('--report expects a value');
  });
});

describe('declining the confirmation (#20.10)', () => {
  it('exits 1, not 0: a script must not read "declined" as "done"', async () => {
    const terminal = <T extends object>(stream: T) => Object.assign(stream, { isTTY: true, columns: 100 });
    const stdin = terminal(new PassThrough());
    const stderr = terminal(new PassThrough());
    let err = '';
    stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      if (err.includes('[y/N]')) stdin.write('n\n');
    });
    // --simulate: the state goes to a temporary folder, never beside the repo's demo manifest.
    const code = await runCli(['apply', DEMO, '--simulate'], {
      env: { NO_COLOR: '1', ...testCacheEnv },
      cwd: process.cwd(),
      stdin,
      stdout: new PassThrough(),
      stderr,
    });
    expect(err).toContain('Nothing was applied.');
    expect(code).toBe(1);
  });
});
