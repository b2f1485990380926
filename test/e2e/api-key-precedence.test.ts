import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../src/simulator/index.js';
import type { Simulator } from '../../src/simulator/types.js';
import {
  FAST_POLLS,
  IMAGE_MODEL,
  makeWorkDir,
  writeImageMatrixManifest,
  writeKeyFiles,
} from './apply-fixtures.js';
import { runCli, type CliResult } from './run-cli.js';

/** The key the simulator accepts, in the key file; the variable holds another one. */
const FILE_KEY = 'sk-PRECEDENCE-file-5d2c8e41a7';
const ENV_KEY = 'sk-PRECEDENCE-env-93b0f6c2d1';

/**
 * When `--api-key-file` and `MEDIAGEN_API_KEY` disagree, every command that reads the key takes the
 * file's (README, "The API key"): the commands that send it are let in by a service that knows only
 * the file's key, and those that render the manifest refuse a template that reads it.
 */
describe('the API key when the key file and MEDIAGEN_API_KEY disagree', () => {
  let simulator: Simulator;
  let dir: string;
  let keyFile: string;
  let envKeyFile: string;
  const outputs: CliResult[] = [];

  beforeAll(async () => {
    simulator = await startSimulator({ timeScale: 0.006, seed: 34, apiKey: FILE_KEY });
    dir = await makeWorkDir('api-key-precedence');
    ({ 'file-key': keyFile, 'env-key': envKeyFile } = await writeKeyFiles(dir, {
      'file-key': FILE_KEY,
      'env-key': ENV_KEY,
    }));
  });
  afterAll(async () => {
    await simulator.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function run(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
    const result = await runCli(args, {
      env: { MEDIAGEN_BASE_URL: simulator.baseUrl, MEDIAGEN_API_KEY: ENV_KEY, ...env },
      cwd: dir,
      timeoutMs: 60_000,
    });
    outputs.push(result);
    return result;
  }

  it("sends the key file's key, not the variable's: models, balance, validate, plan and apply", async () => {
    const { file } = await writeImageMatrixManifest(dir, {
      name: 'precedence',
      subjects: ['fox'],
      styles: ['ink'],
    });
    const withFile = ['--api-key-file', keyFile];
    for (const args of [
      ['models'],
      ['balance', '--json'],
      ['validate', file],
      ['plan', file, '--format', 'json', '--out', join(dir, 'plan.json'), '--state-dir', join(dir, 'state')],
      [
        'apply',
        file,
        '--yes',
        '--state-dir',
        join(dir, 'state'),
        '--output',
        join(dir, 'out'),
        ...FAST_POLLS,
      ],
    ]) {
      const result = await run([...args, ...withFile]);
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(0);
    }
    // The other way round: the right key in the variable does not rescue a wrong key file.
    const wrongFile = await run(['balance', '--api-key-file', envKeyFile], { MEDIAGEN_API_KEY: FILE_KEY });
    expect(wrongFile.code).toBe(4);
    expect(wrongFile.stderr).toContain('401');
  }, 120_000);

  it("refuses a template that reads the key file's key through another variable: validate, plan, render", async () => {
    const file = join(dir, 'alias.yaml');
    await writeFile(
      file,
      [
        'version: 1',
        'name: alias',
        'defaults:',
        '  kind: image',
        `  model: ${IMAGE_MODEL}`,
        'jobs:',
        '  - id: aliased',
        "    prompt: 'A poster that reads {{ env.KEY_ALIAS }} in big letters on a brick wall'",
        '    params:',
        '      format: png',
        '',
      ].join('\n'),
    );
    const commands = [
      ['validate', file],
      ['plan', file, '--state-dir', join(dir, 'state-alias')],
      ['render', file],
    ];
    for (const args of commands) {
      const refused = await run([...args, '--api-key-file', keyFile], { KEY_ALIAS: FILE_KEY });
      expect(refused.code, `${args[0]}: ${refused.stderr}`).toBe(2);
      expect(refused.stderr).toContain('uses {{ env.KEY_ALIAS }}, whose value is the API key');
    }
    // A value that is no key passes: the refusal above is the key's.
    const plain = await run(['validate', file, '--api-key-file', keyFile], { KEY_ALIAS: 'SALE' });
    expect(plain.code, plain.stderr).toBe(0);
  }, 120_000);

  it('printed neither key', () => {
    for (const { stdout, stderr } of outputs) {
      expect(`${stdout}${stderr}`).not.toContain('PRECEDENCE');
    }
  });
});
