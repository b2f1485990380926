import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { testCacheEnv } from '../../test-cache-env.js';

/**
 * A flag that names a file of this machine given a URL (`--report s3://…`) was written as a folder
 * named `s3:` in the current directory, with the report in it rather than in the bucket.
 */
describe('flags that name a local file refuse a URL', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-local-path-'));
    await writeFile(
      join(dir, 'm.yaml'),
      'version: 1\nname: p\njobs:\n  - id: a\n    kind: image\n    model: chatgpt-image-sangtao\n    prompt: a fox\n',
    );
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function run(argv: string[]) {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    stdout.resume();
    const code = await runCli(argv, {
      env: { NO_COLOR: '1', ...testCacheEnv },
      cwd: dir,
      stdin: new PassThrough(),
      stdout,
      stderr,
    });
    return { code, stderr: err };
  }

  it.each([
    ['apply', '--report', 's3://bucket/night/report.html'],
    ['apply', '--junit', 's3://bucket/night/junit.xml'],
    ['report', '--out', 's3://bucket/review'],
    ['plan', '--out', 'https://example.test/plan.json'],
    ['plan', '--out', 's3://bucket/pr/head.json', '--compare-to', 'base.json'],
  ])('%s %s %s: exit 2, naming the flag, nothing written', async (command, flag, value, ...more) => {
    const result = await run([command, join(dir, 'm.yaml'), flag, value, ...more, '--simulate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${flag} names a file of this machine, not a URL`);
    expect(await readdir(dir)).toEqual(['m.yaml']);
  });

  it('says where a bucket output puts its report', async () => {
    const result = await run(['apply', 'm.yaml', '--report', 's3://bucket/r.html', '--simulate']);
    expect(result.stderr).toMatch(/written into the bucket beside the results/);
  });
});
