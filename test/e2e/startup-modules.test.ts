import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath } from './run-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
/** The preload the startup benchmark counts modules with: it lists every module file a run loads. */
const moduleListHook = join(repo, 'bench/module-count.js');

/**
 * Runs the built CLI under the preload and returns the modules it loaded, as paths from the package
 * root without extension and without a leading `src/` or `dist/` (`service/http`,
 * `node_modules/yaml/dist/index`). A file of the bundle (dist/bundle/) stands for the modules linked
 * into it, read from its source map, so the checks below name modules, however they were linked.
 */
async function loadedModules(dir: string, args: string[], cacheDir = join(dir, 'cache')): Promise<string[]> {
  if (!existsSync(binPath)) throw new Error(`${binPath} is missing: run \`npm run build\` first`);
  const listFile = join(dir, 'modules.txt');
  await promisify(execFile)(process.execPath, ['--import', moduleListHook, binPath, ...args], {
    cwd: repo,
    env: {
      PATH: process.env.PATH ?? '',
      NO_COLOR: '1',
      RUNNER_MODULE_LIST: listFile,
      RUNNER_CACHE_DIR: cacheDir,
    },
  });
  const files = (await readFile(listFile, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((url) => fileURLToPath(url));
  const modules = new Set<string>();
  for (const file of files) {
    const sources = file.startsWith(join(repo, 'dist/bundle/'))
      ? (JSON.parse(await readFile(`${file}.map`, 'utf8')) as { sources: string[] }).sources.map((source) =>
          join(dirname(file), source),
        )
      : [file];
    for (const source of sources) {
      modules.add(
        relative(repo, source)
          .replace(/^(src|dist)\//, '')
          .replace(/\.[cm]?[jt]s$/, ''),
      );
    }
  }
  return [...modules];
}

const fromPackage = (modules: string[], name: string) =>
  modules.filter((module) => module.startsWith(`node_modules/${name}/`));

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
    expect(modules).toContain('service/http');
  });

  it('validate with a saved catalog loads no HTTP client, logger or simulator', async () => {
    const modules = await loadedModules(dir, ['validate', 'pipelines/demo.yaml', '--catalog', catalogFile]);
    expect(fromPackage(modules, 'yaml').length).toBeGreaterThan(0);
    expect(fromPackage(modules, 'undici')).toEqual([]);
    expect(fromPackage(modules, 'pino')).toEqual([]);
    expect(modules.filter((module) => /^(service\/http|simulator\/)/.test(module))).toEqual([]);
    // The runner's own schemas come precompiled: ajv is there for the catalog's model configs only.
    expect(modules).toContain('generated/pipeline-validator');
  });

  it("ajv's compiler loads only while a model config's validator is missing from the cache", async () => {
    const validate = ['validate', 'pipelines/demo.yaml', '--catalog', catalogFile];
    const cacheDir = join(dir, 'fresh-cache');
    // ajv's compiler, under dist/compile/ or, where a source map leads, under lib/compile/.
    const compiler = (modules: string[]) =>
      fromPackage(modules, 'ajv').filter((module) =>
        /^node_modules\/ajv\/(dist|lib)\/compile\//.test(module),
      );
    const first = await loadedModules(dir, validate, cacheDir);
    expect(compiler(first).length).toBeGreaterThan(0);
    const second = await loadedModules(dir, validate, cacheDir);
    expect(compiler(second)).toEqual([]);
    // What the cached validators run: ajv's small runtime helpers.
    expect(fromPackage(second, 'ajv').length).toBeGreaterThan(0);
  });

  it('--help loads neither the YAML parser nor ajv', async () => {
    const modules = await loadedModules(dir, ['--help']);
    expect(fromPackage(modules, 'yaml')).toEqual([]);
    expect(fromPackage(modules, 'ajv')).toEqual([]);
    expect(fromPackage(modules, 'undici')).toEqual([]);
  });
});
