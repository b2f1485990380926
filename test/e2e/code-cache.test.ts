import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './run-cli.js';

const demoManifest = fileURLToPath(new URL('../../pipelines/demo.yaml', import.meta.url));
const catalogFixture = fileURLToPath(new URL('../fixtures/plan-golden/catalog.json', import.meta.url));
const packageVersion = (
  JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** The launcher (src/cli/launch.ts) keeps V8's code cache of the bundled CLI in the cache folder. */
describe('the code cache of the built CLI', () => {
  let dir: string;
  let codeCache: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-code-cache-'));
    codeCache = join(dir, 'code-cache');
    env = { RUNNER_CACHE_DIR: dir };
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function version(extraEnv: Record<string, string> = {}): Promise<void> {
    const result = await runCli(['--version'], { env: { ...env, ...extraEnv } });
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(packageVersion);
    expect(result.code).toBe(0);
  }

  it('is written by the first run and read, not written again, by the next', async () => {
    await version();
    const names = await readdir(codeCache);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(
      new RegExp(`^main-[0-9a-f]{16}-${process.version.replace(/\./g, '\\.')}-${process.arch}-version\\.v8$`),
    );
    const file = join(codeCache, names[0]!);
    const written = await stat(file);
    expect(written.size).toBeGreaterThan(1000);
    expect(written.mode & 0o777).toBe(0o600);

    await version();
    // V8 took the cache: the launcher writes it again only when it is missing or refused.
    expect((await stat(file)).mtimeMs).toBe(written.mtimeMs);
  });

  it('is kept per command, and only after a run that succeeded', async () => {
    await version();
    const unknown = await runCli(['nosuchcommand'], { env });
    expect(unknown.code).toBe(2);
    const validated = await runCli(['validate', demoManifest, '--catalog', catalogFixture], { env });
    expect(validated.code).toBe(0);
    const kinds = (await readdir(codeCache)).map((name) => /-([a-z-]+)\.v8$/.exec(name)?.[1]);
    expect(kinds.sort()).toEqual(['validate', 'version']);
  });

  it('is written again when V8 refuses it, and the command still runs', async () => {
    await version();
    const [name] = await readdir(codeCache);
    const file = join(codeCache, name!);
    const damaged = Buffer.alloc((await stat(file)).size, 7);
    await writeFile(file, damaged);

    await version();
    expect((await readFile(file)).equals(damaged)).toBe(false);
  });

  it('is not used with source maps on, whose stack traces it would bypass', async () => {
    await version({ NODE_OPTIONS: '--enable-source-maps' });
    expect(await readdir(dir)).not.toContain('code-cache');
  });

  it.skipIf(process.platform === 'win32')(
    'is not read from or written to a folder others may write to',
    async () => {
      await mkdir(codeCache);
      await chmod(codeCache, 0o777);
      await version();
      expect(await readdir(codeCache)).toEqual([]);
    },
  );
});

/** Preloads (`node --require`) that make the file system read-only, or the process another Node. */
const readOnlyPreload = fileURLToPath(new URL('../fixtures/preload/read-only-fs.cjs', import.meta.url));
const otherNodePreload = fileURLToPath(new URL('../fixtures/preload/other-node.cjs', import.meta.url));
const preload = (file: string) => ({ NODE_OPTIONS: `--require ${JSON.stringify(file)}` });

/**
 * The code cache is only an optimization: whatever state its folder is in, every command runs as it
 * would without it, and the cache is never read when it could be another build's, another Node's or
 * half written (#21.4).
 */
describe('the code cache survives', () => {
  let dir: string;
  let codeCache: string;
  let env: Record<string, string>;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'runner-code-cache-'));
    codeCache = join(dir, 'code-cache');
    env = { RUNNER_CACHE_DIR: dir };
  });
  afterEach(async () => {
    await chmod(dir, 0o700).catch(() => undefined);
    await chmod(codeCache, 0o700).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs `args`, which must succeed quietly; returns stdout. */
  async function succeeds(args: string[], extraEnv: Record<string, string> = {}): Promise<string> {
    const result = await runCli(args, { env: { ...env, ...extraEnv } });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return result.stdout;
  }
  const version = (extraEnv: Record<string, string> = {}) => succeeds(['--version'], extraEnv);
  const validate = (extraEnv: Record<string, string> = {}) =>
    succeeds(['validate', demoManifest, '--catalog', catalogFixture], extraEnv);

  /** Each file of the code-cache folder with its size and modification time. */
  async function files(folder = codeCache): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const name of await readdir(folder)) {
      const { size, mtimeMs } = await stat(join(folder, name));
      out[name] = `${size}@${mtimeMs}`;
    }
    return out;
  }

  it('in a read-only folder: commands run, the cache found is left as it is, nothing is written', async () => {
    await version();
    const before = await files();
    expect(Object.keys(before)).toHaveLength(1);
    // Mode bits for a user; the preload for root, whom they do not stop.
    await chmod(codeCache, 0o500);
    await chmod(dir, 0o500);
    const readOnly = { ...preload(readOnlyPreload), RUNNER_TEST_READ_ONLY: dir };
    expect(await version(readOnly)).toContain(packageVersion);
    // validate finds no cache of its own and cannot write one.
    expect(await validate(readOnly)).toContain('is valid');
    expect(await files()).toEqual(before);
  });

  it('with a cache folder missing, even its parents: creates it (0700) and writes the cache', async () => {
    const nested = join(dir, 'not', 'yet');
    await version({ RUNNER_CACHE_DIR: nested });
    expect((await stat(nested)).mode & 0o777).toBe(0o700);
    expect((await stat(join(nested, 'code-cache'))).mode & 0o777).toBe(0o700);
    expect(Object.keys(await files(join(nested, 'code-cache')))).toHaveLength(1);
  });

  it('with a home or XDG_CACHE_HOME it cannot write to: commands run without a cache', async () => {
    const notAFolder = join(dir, 'file');
    await writeFile(notAFolder, '');
    const readOnlyXdg = join(dir, 'xdg');
    await mkdir(readOnlyXdg);
    const homes: Record<string, string>[] = [
      { HOME: join(notAFolder, 'home') },
      { HOME: dir, XDG_CACHE_HOME: join(notAFolder, 'cache') },
      {
        HOME: dir,
        XDG_CACHE_HOME: readOnlyXdg,
        ...preload(readOnlyPreload),
        RUNNER_TEST_READ_ONLY: readOnlyXdg,
      },
    ];
    for (const home of homes) {
      // No RUNNER_CACHE_DIR: the platform's cache folder, under XDG_CACHE_HOME or HOME.
      const unset = { RUNNER_CACHE_DIR: '', ...home };
      expect(await version(unset)).toContain(packageVersion);
      expect(await validate(unset)).toContain('is valid');
    }
    expect(await readdir(readOnlyXdg)).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['file', 'xdg']);
  });

  it('after a Node upgrade: a cache another Node version or architecture wrote is not read', async () => {
    const other = { ...preload(otherNodePreload), RUNNER_TEST_NODE_VERSION: 'v99.0.0' };
    await version(other);
    await version({ ...other, RUNNER_TEST_NODE_ARCH: 'riscv64' });
    const theirs = await files();
    expect(Object.keys(theirs).sort()).toEqual([
      expect.stringMatching(/-v99\.0\.0-riscv64-version\.v8$/),
      expect.stringMatching(new RegExp(`-v99\\.0\\.0-${process.arch}-version\\.v8$`)),
    ]);

    // This Node writes its own, and leaves theirs as they were.
    await version();
    const now = await files();
    expect(Object.keys(now)).toHaveLength(3);
    for (const [name, written] of Object.entries(theirs)) expect(now[name]).toBe(written);
  });

  it('a cache stamped by another V8 under this Node’s name is refused and written again', async () => {
    await version();
    const [name] = await readdir(codeCache);
    const file = join(codeCache, name!);
    const data = await readFile(file);
    // V8's code cache header: a magic number, then the hash of the V8 version that wrote it.
    data.writeUInt32LE((data.readUInt32LE(4) ^ 0xffffffff) >>> 0, 4);
    await writeFile(file, data);

    await version();
    const rewritten = await readFile(file);
    expect(rewritten.readUInt32LE(4)).not.toBe(data.readUInt32LE(4));
    await expectAccepted(file);
  });

  it('a truncated or empty entry is refused and written again, whole', async () => {
    await version();
    const [name] = await readdir(codeCache);
    const file = join(codeCache, name!);
    const whole = (await stat(file)).size;
    for (const size of [Math.floor(whole / 2), 0]) {
      await truncate(file, size);
      await version();
      expect((await stat(file)).size).toBeGreaterThan(whole / 2);
      await expectAccepted(file);
    }
  });

  it('two processes writing the same entry at once: both run, and the entry is whole afterwards', async () => {
    const runs = await Promise.all([1, 2, 3, 4].map(() => runCli(['--version'], { env })));
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(packageVersion);
    }
    // One entry, no temporary file left, and V8 takes it.
    const names = await readdir(codeCache);
    expect(names).toEqual([expect.stringMatching(/-version\.v8$/)]);
    await expectAccepted(join(codeCache, names[0]!));
  });

  /** V8 takes the cache: the next run reads it and does not write it again. */
  async function expectAccepted(file: string): Promise<void> {
    const before = await stat(file);
    await version();
    expect((await stat(file)).mtimeMs).toBe(before.mtimeMs);
  }
});

describe('the bundled scripts', () => {
  it('run in strict mode, as the ES modules they are built from', async () => {
    for (const name of ['main.cjs', 'runner.js']) {
      const text = await readFile(new URL(`../../dist/bundle/${name}`, import.meta.url), 'utf8');
      // The directive must come first (after the hashbang): anything before it makes it a plain string.
      expect(text).toMatch(/^(#![^\n]*\n)?'use strict';\n/);
    }
  });
});
