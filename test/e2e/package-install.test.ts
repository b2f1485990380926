import { execFile } from 'node:child_process';
import {
  cp,
  mkdir,
  mkdtemp,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv } from './run-cli.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));

/**
 * What the build reads. The package is packed from a copy of these, not from this checkout: packing
 * runs `prepare` (the build), which replaces dist/ while other tests run the CLI from it.
 */
const SOURCES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'README.md',
  'src',
  'scripts',
  'schemas',
];

/** npm with no network, its cache in the test's folder, none of the developer's or vitest's npm settings. */
function npmEnv(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_offline: 'true',
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_loglevel: 'error',
  };
}

/**
 * The runtime dependencies, from the lockfile: every package not marked `dev`, top level only. An optional
 * one npm left out on this platform (sharp's prebuilt binaries for other systems) is left out here too.
 */
async function productionPackages(): Promise<string[]> {
  const lock = JSON.parse(await readFile(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean; optional?: boolean }>;
  };
  const names = Object.entries(lock.packages)
    .filter(([path, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && entry.dev !== true)
    .map(([path, entry]) => ({
      name: path.slice('node_modules/'.length),
      optional: entry.optional === true,
    }));
  const installed = await Promise.all(
    names.map(async ({ name, optional }) => !optional || (await exists(join(root, 'node_modules', name)))),
  );
  return names.filter((_, index) => installed[index]).map(({ name }) => name);
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * `npm install <the git repository>` and `npm pack` both run the package's `prepare` script on a fresh
 * checkout, where nothing has built dist/ yet (#24.10): the tarball must hold a working `runner`, with
 * only the runtime dependencies beside it. Offline: the copy links this checkout's node_modules for the
 * build, and the "installed" package gets links to the runtime dependencies only, as `npm install
 * --omit=dev` would lay them out.
 */
describe('the packed package (npm pack / npm install from git)', () => {
  let dir: string;
  let files: string[];
  let bin: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-e2e-package-'));
    const source = join(dir, 'source');
    await mkdir(source);
    for (const entry of SOURCES) await cp(join(root, entry), join(source, entry), { recursive: true });
    await symlink(await realpath(join(root, 'node_modules')), join(source, 'node_modules'));
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], {
      cwd: source,
      env: npmEnv(dir),
      maxBuffer: 16 * 1024 * 1024,
    });
    const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
    if (info === undefined) throw new Error(`npm pack printed no package: ${packed.stdout}`);
    files = info.files.map((file) => file.path);

    const app = join(dir, 'app');
    const modules = join(app, 'node_modules');
    await mkdir(modules, { recursive: true });
    await writeFile(join(app, 'package.json'), '{ "private": true }\n');
    await run('tar', ['-xzf', join(dir, info.filename), '-C', modules]);
    await rename(join(modules, 'package'), join(modules, 'mediagen-runner'));
    for (const name of await productionPackages()) {
      await mkdir(dirname(join(modules, name)), { recursive: true });
      await symlink(await realpath(join(root, 'node_modules', name)), join(modules, name));
    }
    const manifest = JSON.parse(await readFile(join(modules, 'mediagen-runner', 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    await mkdir(join(modules, '.bin'));
    bin = join(modules, '.bin', 'runner');
    await symlink(join('..', 'mediagen-runner', manifest.bin.runner ?? 'missing'), bin);
  }, 180_000);

  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('holds the built CLI and the schemas, not the sources', () => {
    expect(files).toContain('dist/bundle/runner.js');
    expect(files).toContain('dist/bundle/main.cjs');
    expect(files).toContain('schemas/pipeline.schema.json');
    expect(files.filter((file) => file.startsWith('src/') || file.startsWith('test/'))).toEqual([]);
  });

  it('ships what runs: the bundle without source maps, not the unbundled dist/ (#33.12)', () => {
    // It shipped both, with 341 source maps: 741 files where 16 run.
    expect(files.filter((file) => file.startsWith('dist/') && !file.startsWith('dist/bundle/'))).toEqual([]);
    expect(files.filter((file) => file.endsWith('.map'))).toEqual([]);
  });

  it('runs as the `runner` its bin names, executable, with the runtime dependencies only', async () => {
    expect((await stat(bin)).mode & 0o111).not.toBe(0);
    const version = await run(bin, ['--version'], { cwd: join(dir, 'app'), env: cliEnv() });
    expect(version.stdout).toMatch(/^runner\/\d+\.\d+\.\d+ /);

    // A whole apply against the in-process simulator: the HTTP client and the logger (left out of the
    // bundle, loaded from node_modules) and the schemas (read from the package) all load.
    const manifest = join(dir, 'app', 'one.yaml');
    await writeFile(
      manifest,
      [
        'version: 1',
        'name: one',
        'jobs:',
        '  - id: cup',
        '    kind: image',
        '    model: chatgpt-image-sangtao',
        '    prompt: A watercolor picture of a coffee cup on a wooden table in soft morning light',
        '    params: { format: png }',
        '',
      ].join('\n'),
    );
    const applied = await run(
      bin,
      ['apply', manifest, '--simulate', '--yes', '--log-file', join(dir, 'apply.log')],
      {
        cwd: join(dir, 'app'),
        env: cliEnv(),
      },
    );
    expect(applied.stdout).toMatch(/All 1 jobs done/);
  }, 60_000);
});

/**
 * `npm install /path/to/clone` from another project (#33.12): npm links the folder and runs its `prepare`
 * there with nothing installed, so the build's `tsc` was "not found", the install failed and no `runner`
 * was linked. `scripts/prepare.js` installs the toolchain first. The registry is out of reach here: an
 * `npm` first on PATH stands in for `npm ci` only (it links this checkout's node_modules, as `npm ci`
 * would install them from the lockfile, and records that it was asked); everything else is the real npm.
 */
describe('a folder install (npm install /path/to/clone)', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-e2e-folder-install-'));
  });

  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('builds a clone with nothing installed and links a working `runner`', async () => {
    const clone = join(dir, 'clone');
    await mkdir(clone);
    for (const entry of SOURCES) await cp(join(root, entry), join(clone, entry), { recursive: true });
    const realNpm = (await run('sh', ['-c', 'command -v npm'])).stdout.trim();
    const fakeBin = join(dir, 'fake-bin');
    await mkdir(fakeBin);
    const calls = join(dir, 'npm-ci-calls');
    await writeFile(
      join(fakeBin, 'npm'),
      [
        '#!/bin/sh',
        'if [ "$1" = ci ]; then',
        `  echo "$*" >> '${calls}'`,
        `  ln -s '${await realpath(join(root, 'node_modules'))}' node_modules`,
        '  exit 0',
        'fi',
        `exec '${realNpm}' "$@"`,
        '',
      ].join('\n'),
      { mode: 0o755 },
    );
    const app = join(dir, 'app');
    await mkdir(app);
    await writeFile(join(app, 'package.json'), '{ "name": "app", "private": true }\n');
    const env = { ...npmEnv(dir), PATH: `${fakeBin}:${process.env.PATH ?? ''}` };
    await run(realNpm, ['install', clone], { cwd: app, env, maxBuffer: 16 * 1024 * 1024 });

    expect((await readFile(calls, 'utf8')).trim()).toBe(
      'ci --include=dev --ignore-scripts --no-audit --no-fund',
    );
    const version = await run(join(app, 'node_modules', '.bin', 'runner'), ['--version'], {
      cwd: app,
      env: cliEnv(),
    });
    expect(version.stdout).toMatch(/^runner\/\d+\.\d+\.\d+ /);
  }, 240_000);
});
