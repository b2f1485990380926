import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { compileFunction } from 'node:vm';
import type { ValidateFunction } from 'ajv';
import { isPrivateFolder, removeUnused, writeFileWhole } from '../cache-files.js';

/**
 * Model-config validators kept on disk as ajv standalone code, so a command that checks params
 * against the catalog does not load and run ajv's compiler each time it starts (about a fifth of
 * `runner validate`'s start, see bench/README.md). The runner's own schemas are compiled at build
 * time (src/generated/); model configs come from the catalog, so this is the build step done once
 * per distinct config, on the user's machine.
 *
 * The folder is an optimization only: when it is missing, unwritable, or not private to this user,
 * validators are generated in memory as before. A file whose checksum does not match its code is
 * ignored and written again. Old files are removed when a new one is written (../cache-files.ts).
 */

/** What the cache folder holds: one file per validator, named by the key of what it validates. */
const FILE_SUFFIX = '.cjs';
const HEADER = '// mediagen-runner config validator sha256:';

/** The generated code's `require` resolves ajv's runtime helpers from the runner's own dependencies. */
const requireFromRunner = createRequire(import.meta.url);

let cacheDir: string | undefined;

/**
 * Where validators are kept from now on in this process; `undefined` keeps them in memory only (the
 * default, so library use and unit tests write nothing). The CLI sets it from `RUNNER_CACHE_DIR`.
 */
export function useValidatorCache(dir: string | undefined): void {
  cacheDir = dir;
}

/**
 * The validator cached under `key`, or else the one `generate` writes as ajv standalone code (a
 * CommonJS module whose export is the validate function), which is then cached. Both ways run the
 * generated code, so a validator behaves the same whether or not it came from the folder. `key` must
 * name everything the code depends on (schema, ajv version, options). `generate` may throw, and then
 * nothing is written.
 */
export function loadValidator(key: string, generate: () => string): ValidateFunction {
  const dir = cacheDir !== undefined && isPrivateFolder(cacheDir) ? cacheDir : undefined;
  const file = dir === undefined ? undefined : join(dir, `${key}${FILE_SUFFIX}`);
  if (file !== undefined) {
    const cached = readCachedCode(file);
    if (cached !== undefined) {
      const validate = tryEvaluate(cached, file);
      if (validate !== undefined) return validate;
    }
  }
  const code = generate();
  const validate = evaluate(code, file ?? `${key}${FILE_SUFFIX}`);
  if (dir !== undefined && file !== undefined) {
    if (writeFileWhole(file, `${HEADER}${digestOf(code)}\n${code}`)) removeUnused(dir, [FILE_SUFFIX]);
  }
  return validate;
}

/** A hex digest of `text`, for keys (the one-shot hash, as src/plan/payload-hash.ts uses). */
export function digestOf(text: string): string {
  return hash('sha256', text, 'hex');
}

/** The code of a cache file whose checksum matches; `undefined` when absent, unreadable or altered. */
function readCachedCode(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const newline = text.indexOf('\n');
  if (!text.startsWith(HEADER) || newline < 0) return undefined;
  const code = text.slice(newline + 1);
  return text.slice(HEADER.length, newline) === digestOf(code) ? code : undefined;
}

function tryEvaluate(code: string, filename: string): ValidateFunction | undefined {
  try {
    return evaluate(code, filename);
  } catch {
    return undefined;
  }
}

function evaluate(code: string, filename: string): ValidateFunction {
  const module: { exports: unknown } = { exports: {} };
  // Code this module generated, or read back from the user's own private folder after its checksum
  // matched: the same trust as the modules under node_modules.
  const run = compileFunction(code, ['require', 'module', 'exports'], { filename }) as (
    ...args: [NodeJS.Require, typeof module, unknown]
  ) => void;
  run(requireFromRunner, module, module.exports);
  if (typeof module.exports !== 'function') throw new Error(`${filename} does not export a validator`);
  return module.exports as ValidateFunction;
}
