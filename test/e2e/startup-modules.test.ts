import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath } from './run-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
/** The preload the startup benchmark counts modules with: it lists every module file a run loads. */
const moduleListHook = join(repo, 'bench/module-count.js');

/** Runs the built CLI under the preload and returns the module files it loaded (URLs). */
async function loadedModules(dir: string, args: string[]): Promise<string[]> {
  if (!existsSync(binPath)) throw new Error(`${binPath} is missing: run \`npm run build\` first`);
  const listFile = join(dir, 'modules.txt');
  await promisify(execFile)(process.execPath, ['--import', moduleListHook, binPath, ...args], {
    cwd: repo,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', RUNNER_MODULE_LIST: listFile },
  });
  return [...new Set((await readFile(listFile, 'utf8')).split('\n').filter(Boolean))];
}

const fromPackage = (modules: string[], name: string) =>
  modules.filter((url) => url.includes(`/node_modules/${name}/`));

describe('what the CLI loads at start (built binary)', () => {
  let dir: string;
  let catalogFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-startup-'));
    const { stdout } = await promisify(execFile)(process.execPath, [
      binPath,
      'models',
      '--json',
      '--simulate',
    ]);
    catalogFile = join(dir, 'catalog.json');
    await writeFile(catalogFile, stdout);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('a command that talks to the service loads the HTTP client (the check below can fail)', async () => {
    const modules = await loadedModules(dir, ['models', '--json', '--simulate']);
    expect(fromPackage(modules, 'undici').length).toBeGreaterThan(0);
    expect(modules.some((url) => url.endsWith('/dist/service/http.js'))).toBe(true);
  });

  it('validate with a saved catalog loads no HTTP client, logger or simulator', async () => {
    const modules = await loadedModules(dir, ['validate', 'pipelines/demo.yaml', '--catalog', catalogFile]);
    expect(fromPackage(modules, 'yaml').length).toBeGreaterThan(0);
    expect(fromPackage(modules, 'undici')).toEqual([]);
    expect(fromPackage(modules, 'pino')).toEqual([]);
    expect(modules.filter((url) => /\/dist\/(service\/http|simulator\/)/.test(url))).toEqual([]);
    // The runner's own schemas come precompiled: ajv is there for the catalog's model configs only.
    expect(modules.some((url) => url.endsWith('/dist/generated/pipeline-validator.js'))).toBe(true);
  });

  it('--help loads neither the YAML parser nor ajv', async () => {
    const modules = await loadedModules(dir, ['--help']);
    expect(fromPackage(modules, 'yaml')).toEqual([]);
    expect(fromPackage(modules, 'ajv')).toEqual([]);
    expect(fromPackage(modules, 'undici')).toEqual([]);
  });
});
