import { chmod, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
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

describe('the bundled scripts', () => {
  it('run in strict mode, as the ES modules they are built from', async () => {
    for (const name of ['main.cjs', 'runner.js']) {
      const text = await readFile(new URL(`../../dist/bundle/${name}`, import.meta.url), 'utf8');
      // The directive must come first (after the hashbang): anything before it makes it a plain string.
      expect(text).toMatch(/^(#![^\n]*\n)?'use strict';\n/);
    }
  });
});
