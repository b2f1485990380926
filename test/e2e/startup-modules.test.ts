import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binPath, cliEnv } from './run-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** What V8's coverage (`NODE_V8_COVERAGE`) says of one script: its URL and its functions' names and counts. */
interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { count: number }[] }[];
}

let runs = 0;

/**
 * Runs the built CLI and returns the modules it ran, as paths from the package root without extension
 * and without a leading `dist/` (`service/http`, `node_modules/yaml/dist/index`), from V8's coverage of
 * the run: a file loaded from node_modules is a module; in a file of the bundle (dist/bundle/), a module
 * is the function esbuild wraps it in (named by its path, run when the module is first imported), so
 * the checks below see which modules a command initialized, not which files it read. Modules the
 * bundle initializes at start unwrapped are not listed; each check of absence below has a check of
 * presence beside it that would fail if its module were not wrapped.
 */
async function loadedModules(dir: string, args: string[], cacheDir = join(dir, 'cache')): Promise<string[]> {
  if (!existsSync(binPath)) throw new Error(`${binPath} is missing: run \`npm run build\` first`);
  const coverageDir = join(dir, `coverage-${runs++}`);
  await promisify(execFile)(process.execPath, [binPath, ...args], {
    cwd: repo,
    env: cliEnv({ NODE_V8_COVERAGE: coverageDir, RUNNER_CACHE_DIR: cacheDir }),
  });
  const modules = new Set<string>();
  for (const name of await readdir(coverageDir)) {
    const { result } = JSON.parse(await readFile(join(coverageDir, name), 'utf8')) as {
      result: ScriptCoverage[];
    };
    for (const script of result) {
      if (!script.url.startsWith('file:')) continue;
      const file = fileURLToPath(script.url);
      if (!file.startsWith(join(repo, 'dist/bundle/'))) {
        modules.add(withoutExtension(inPackage(file) ?? relative(repo, file)));
        continue;
      }
      for (const { functionName, ranges } of script.functions) {
        const name = inPackage(functionName) ?? functionName;
        if (/^(dist|node_modules)\//.test(name) && (ranges[0]?.count ?? 0) > 0) {
          modules.add(withoutExtension(name).replace(/^dist\//, ''));
        }
      }
    }
  }
  return [...modules];
}

const withoutExtension = (path: string) => path.replace(/\.[cm]?[jt]s$/, '');

/**
 * A package's file as `node_modules/<name>/…`, wherever its real path is: node_modules may be a link
 * to a shared install (as in a git worktree), and esbuild names a bundled module by its real path.
 */
function inPackage(path: string): string | undefined {
  const at = path.lastIndexOf('node_modules/');
  return at === 0 || path[at - 1] === '/' ? path.slice(at) : undefined;
}

const fromPackage = (modules: string[], name: string) =>
  modules.filter((module) => module.startsWith(`node_modules/${name}/`));

describe('what the CLI loads at start (built binary)', () => {
  let dir: string;
  let catalogFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-startup-'));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [binPath, 'models', '--json', '--simulate'],
      {
        env: cliEnv(),
      },
    );
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
    expect(fromPackage(modules, 'sharp')).toEqual([]);
    expect(modules.filter((module) => /^(service\/http|simulator\/)/.test(module))).toEqual([]);
    // The runner's own schemas come precompiled: ajv is there for the catalog's model configs only.
    expect(modules).toContain('generated/pipeline-validator');
  });

  it("ajv's compiler loads for a command that checks params, at every run", async () => {
    // Model configs' validators are compiled in each process: keeping them in the cache folder bought
    // less than 20 ms (bench/README.md, #21.4).
    const validate = ['validate', 'pipelines/demo.yaml', '--catalog', catalogFile];
    const cacheDir = join(dir, 'fresh-cache');
    // ajv's compiler, under dist/compile/ or, where a source map leads, under lib/compile/.
    const compiler = (modules: string[]) =>
      fromPackage(modules, 'ajv').filter((module) =>
        /^node_modules\/ajv\/(dist|lib)\/compile\//.test(module),
      );
    expect(compiler(await loadedModules(dir, validate, cacheDir)).length).toBeGreaterThan(0);
    expect(compiler(await loadedModules(dir, validate, cacheDir)).length).toBeGreaterThan(0);
  });

  it('--help loads neither the YAML parser nor ajv', async () => {
    const modules = await loadedModules(dir, ['--help']);
    expect(fromPackage(modules, 'yaml')).toEqual([]);
    expect(fromPackage(modules, 'ajv')).toEqual([]);
    expect(fromPackage(modules, 'undici')).toEqual([]);
    expect(fromPackage(modules, 'sharp')).toEqual([]);
  });

  it('sharp loads only once an image result is saved (apply), not for plan (the check below can fail)', async () => {
    const planned = await loadedModules(dir, ['plan', 'pipelines/demo.yaml', '--simulate']);
    expect(planned).toContain('plan/build-plan');
    expect(fromPackage(planned, 'sharp')).toEqual([]);
    const applied = await loadedModules(dir, [
      'apply',
      'pipelines/demo.yaml',
      '--simulate',
      '--yes',
      '--output',
      join(dir, 'out'),
      '--state-dir',
      join(dir, 'state'),
    ]);
    expect(fromPackage(applied, 'sharp').length).toBeGreaterThan(0);
    // A folder output never loads the AWS SDK (only an s3:// output does: src/results/s3-results.ts).
    expect(fromPackage(applied, '@aws-sdk')).toEqual([]);
    expect(fromPackage(applied, '@smithy')).toEqual([]);
  });
});
