#!/usr/bin/env node
/**
 * The `runner` executable as the package ships it (dist/bundle/runner.js, built from this file by
 * scripts/bundle.js): runs the bundled CLI, dist/bundle/main.cjs, from V8's code cache kept in the
 * runner's cache folder, so a command does not parse the CLI's ~1 MB of JavaScript at every start
 * (Node 20 has no compile cache of its own; about a third of `runner validate` above Node's start).
 *
 * The cache is written at exit when it was missing or V8 refused it (another Node, other V8 flags),
 * one per command ({@link commandOf}), and named by the bundle's content hash, so a new build never
 * reads an older build's cache. Without a usable cache folder, or with source maps on
 * (`--enable-source-maps`, which the code cache would bypass), the bundle is loaded as a plain
 * CommonJS module.
 */
import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { isPrivateFolder, removeUnused, writeFileWhole } from '../cache-files.js';
import { runnerCacheDir } from './cache-dir.js';

/** The bundle's content hash, set by scripts/bundle.js. */
declare const RUNNER_BUNDLE_HASH: string;

const CACHE_SUFFIX = '.v8';
const bundle = fileURLToPath(new URL('./main.cjs', import.meta.url));
const requireFromBundle = createRequire(bundle);

function launch(): void {
  const folder = join(runnerCacheDir(process.env, process.cwd()), 'code-cache');
  if (process.sourceMapsEnabled || !isPrivateFolder(folder)) {
    requireFromBundle(bundle);
    return;
  }
  const command = commandOf(process.argv.slice(2));
  const cacheFile = join(
    folder,
    `main-${RUNNER_BUNDLE_HASH}-${process.version}-${process.arch}-${command}${CACHE_SUFFIX}`,
  );
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // None yet.
  }
  // A hashbang line is not JavaScript inside a function; a comment keeps the line numbers.
  const source = readBundleSource().replace(/^#!/, '//');
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (cachedData === undefined || script.cachedDataRejected === true) {
    // At exit, so the cache holds the functions this run compiled, not only the top level; and only
    // after a run that succeeded, so a mistyped command leaves no file behind.
    process.once('exit', (code) => {
      if (code !== 0) return;
      if (writeFileWhole(cacheFile, script.createCachedData())) removeUnused(folder, [CACHE_SUFFIX]);
    });
  }
  const module = { exports: {} };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, requireFromBundle, module, bundle, dirname(bundle));
}

/**
 * The bundle's text. scripts/bundle.js writes it in ASCII, which read as Latin-1 is the same text: a
 * copy of the bytes, where decoding its ~1.9 MB as UTF-8 took ~16 M instructions (~1.5 % of a 1-job
 * `runner plan`, valgrind; bench/README.md, #34) in every command. A bundle with other characters
 * (built some other way) is decoded as UTF-8.
 */
function readBundleSource(): string {
  const bytes = readFileSync(bundle);
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/**
 * The command a run is for, as far as its arguments tell before the CLI parses them, which names its
 * code cache: each command's cache holds the code that command compiled. One cache for all would
 * hold what the first run compiled: after a first `runner --help`, `validate` would compile its own
 * code at every start. Help and version runs, which compile little, have caches of their own.
 */
function commandOf(args: readonly string[]): string {
  if (args.some((arg) => arg === '--help' || arg === '-h')) return 'help';
  if (args.some((arg) => arg === '--version' || arg === '-v')) return 'version';
  const first = args.find((arg) => !arg.startsWith('-'));
  return first !== undefined && /^[a-z][a-z-]{0,23}$/.test(first) ? first : 'other';
}

launch();
