import { PassThrough } from 'node:stream';
import { runCli } from '../../../src/cli/main.js';
import { testCacheEnv } from '../../test-cache-env.js';

/**
 * Runs the CLI in this process (no build, no child) with `env` and no colour; resolves to the exit
 * code and both streams' text.
 */
export async function runInProcess(
  argv: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const code = await runCli(argv, {
    env: { NO_COLOR: '1', ...testCacheEnv, ...env },
    cwd: process.cwd(),
    stdin: new PassThrough(),
    stdout,
    stderr,
  });
  return { code, stdout: out, stderr: err };
}
