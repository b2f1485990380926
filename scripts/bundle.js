#!/usr/bin/env node
/**
 * Links the compiled CLI (dist/, from tsc) into three files under dist/bundle/. Node 20 has no compile
 * cache, so each module a command loads costs a resolve, a read and a compile (`runner validate`
 * loaded 212 files, yaml and ajv ~70 each), and every start parses what it loads:
 *
 * - main.cjs: the whole CLI (dist/cli/bin.js and all it imports) as one CommonJS script, so that V8
 *   can keep its compiled code between runs (V8's code cache applies to scripts, not ES modules).
 *   Commands are still initialized only when run: esbuild turns `import()` into lazy initializers.
 * - runner.js: the entry the package's `bin` names (src/cli/launch.ts), a CommonJS script too (see
 *   dist/bundle/package.json below): runs main.cjs from the code cache kept in the runner's cache folder.
 * - ajv-compiler.cjs: ajv's compiler, loaded only by a command that checks params against a model config.
 *
 * Left out, loaded from node_modules when a command first needs them: undici and pino (only the
 * commands that talk to the service load them, see src/cli/effects/connect.ts; pino finds its transports by
 * file path), and the AWS SDK (~150 packages: only an `s3://` output loads it, src/results/s3-results.ts). The files stay two levels below the package root, as dist/<folder>/<file>.js modules are,
 * because three modules find package files from their own URL (`../../package.json`, `../../schemas/`).
 *
 *   node scripts/bundle.js        # after tsc; `npm run build` runs both
 */
import { createHash } from 'node:crypto';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const COMMON = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
};

// Clear the folder so no file of an earlier build lingers.
await rm(`${ROOT}dist/bundle`, { recursive: true, force: true });

// A CommonJS script has no import.meta: its modules' `import.meta.url` is the script's own URL.
const SCRIPT_URL = {
  define: { 'import.meta.url': '__scriptUrl' },
  // `"use strict"` first: a banner ahead of esbuild's own directive would leave the script sloppy.
  banner: { js: "'use strict';\nconst __scriptUrl = require('node:url').pathToFileURL(__filename).href;" },
};

await build({
  ...COMMON,
  ...SCRIPT_URL,
  entryPoints: ['dist/cli/bin.js'],
  outfile: 'dist/bundle/main.cjs',
  format: 'cjs',
  // sharp loads its native libvips build from node_modules (src/report/thumbnails.ts, lazily).
  external: ['undici', 'pino', 'pg', 'sharp', '@aws-sdk/client-s3'],
});

// ASCII throughout, so the launcher reads it as Latin-1, a copy of its bytes, not by decoding UTF-8
// (src/cli/launch.ts). esbuild already escapes strings, regular expressions and names
// (`charset: 'ascii'` is its default); what it copies as written is comments, where an escape reads as
// well as the character.
const mainSource = (await readFile(`${ROOT}dist/bundle/main.cjs`, 'utf8')).replace(
  /[^\0-\x7f]/gu,
  (character) => `\\u{${character.codePointAt(0).toString(16)}}`,
);
await writeFile(`${ROOT}dist/bundle/main.cjs`, mainSource);

// The launcher names its code cache by the bundle's content, so no build reads another's cache.
const bundleHash = createHash('sha256').update(mainSource).digest('hex').slice(0, 16);
await build({
  ...COMMON,
  ...SCRIPT_URL,
  entryPoints: { runner: 'dist/cli/launch.js' },
  outdir: 'dist/bundle',
  format: 'cjs',
  define: { ...SCRIPT_URL.define, RUNNER_BUNDLE_HASH: JSON.stringify(bundleHash) },
});
await chmod(`${ROOT}dist/bundle/runner.js`, 0o755);
// runner.js keeps the name the package's `bin` has always had; this makes it a CommonJS script, which
// Node starts with less work than an ES module (~1.5 ms; every file here is a CommonJS script).
await writeFile(`${ROOT}dist/bundle/package.json`, `${JSON.stringify({ type: 'commonjs' })}\n`);

// ajv's compiler as one CommonJS file, for a command that compiles a model config's validator
// (src/catalog/config-schema.ts, `requireCompiler`). Compiling is synchronous, so it is loaded with
// `require`, which would otherwise read ajv's ~70 files from node_modules (~40 ms).
await build({
  ...COMMON,
  stdin: {
    contents: "module.exports = { Ajv: require('ajv').Ajv };",
    resolveDir: ROOT,
    sourcefile: 'ajv-compiler.cjs',
  },
  outfile: 'dist/bundle/ajv-compiler.cjs',
  format: 'cjs',
});
