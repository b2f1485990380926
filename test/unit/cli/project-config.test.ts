import { copyFile, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runInProcess } from './run-in-process.js';
import { applyProjectConfig, readProjectConfig } from '../../../src/cli/parse/project-config.js';

const run = runInProcess;

/** A folder holding a copy of the demo manifest and, when given, a runner.config.yaml. */
async function project(config?: string): Promise<{ dir: string; manifest: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'runner-project-'));
  const manifest = join(dir, 'demo.yaml');
  await copyFile('pipelines/demo.yaml', manifest);
  if (config !== undefined) await writeFile(join(dir, 'runner.config.yaml'), config);
  return { dir, manifest };
}

const stateRoot = (stdout: string) => (JSON.parse(stdout) as { stateRoot: string }).stateRoot;

describe('runner.config.yaml beside the manifest (#20.3)', () => {
  it('sets the state folder, relative to itself; RUNNER_STATE_DIR and --state-dir win over it', async () => {
    const { dir, manifest } = await project('stateDir: shared-state\noutputRoot: results\n');
    expect(stateRoot((await run(['runs', manifest, '--json'])).stdout)).toBe(join(dir, 'shared-state'));
    const fromEnv = await run(['runs', manifest, '--json'], { RUNNER_STATE_DIR: join(dir, 'env') });
    expect(stateRoot(fromEnv.stdout)).toBe(join(dir, 'env'));
    const fromFlag = await run(['runs', manifest, '--json', '--state-dir', join(dir, 'flag')], {
      RUNNER_STATE_DIR: join(dir, 'env'),
    });
    expect(stateRoot(fromFlag.stdout)).toBe(join(dir, 'flag'));
    expect(await readProjectConfig(manifest)).toEqual({
      file: join(dir, 'runner.config.yaml'),
      stateDir: join(dir, 'shared-state'),
      outputRoot: join(dir, 'results'),
    });
  });

  it('reports every mistake at once with file:line:col, exit 2', async () => {
    const { dir, manifest } = await project('stateDri: s\noutputRoot: 3\nstateDir: ""\n');
    const result = await run(['runs', manifest]);
    expect(result.code).toBe(2);
    const file = join(dir, 'runner.config.yaml');
    expect(result.stderr).toContain(`${file}:1:1 unknown key "stateDri": did you mean "stateDir"?`);
    expect(result.stderr).toContain(
      `${file}:2:13 outputRoot expects a folder (a non-empty string); received 3`,
    );
    expect(result.stderr).toContain(
      `${file}:3:11 stateDir expects a folder (a non-empty string); received ""`,
    );
  });

  it('names a YAML syntax error and a file that is not a map at their place', async () => {
    const broken = await project('stateDir: [unclosed\n');
    const syntax = await run(['status', broken.manifest]);
    expect(syntax.code).toBe(2);
    expect(syntax.stderr).toContain(`${join(broken.dir, 'runner.config.yaml')}:`);
    const list = await project('- stateDir: s\n');
    const notMap = await run(['runs', list.manifest]);
    expect(notMap.code).toBe(2);
    expect(notMap.stderr).toContain(
      `${join(list.dir, 'runner.config.yaml')}:1:1 expected a map of stateDir, outputRoot`,
    );
  });

  it('gives outputRoot as RUNNER_OUTPUT when that is not set; never with --simulate', async () => {
    const { dir, manifest } = await project('outputRoot: results\n');
    const takes = new Set(['output', 'state-dir']);
    const input = { manifestFile: manifest, takes, simulate: false };
    expect((await applyProjectConfig({}, { ...input, env: {} })).RUNNER_OUTPUT).toBe(join(dir, 'results'));
    expect((await applyProjectConfig({}, { ...input, env: { RUNNER_OUTPUT: 'x' } })).RUNNER_OUTPUT).toBe('x');
    expect(
      (await applyProjectConfig({}, { ...input, env: {}, simulate: true })).RUNNER_OUTPUT,
    ).toBeUndefined();
  });

  it('is not read by commands that locate no state or results', async () => {
    const { manifest } = await project('nonsense: 1\n');
    const result = await run(['render', manifest]);
    expect(result.code, result.stderr).toBe(0);
  });
});
