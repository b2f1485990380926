#!/usr/bin/env node
/**
 * Links the compiled CLI (dist/, from tsc) into a few files under dist/bundle/: runner.js, the entry
 * the package's `bin` names, plus chunks its commands load on demand. Node 20 has no compile cache, so
 * each module a command loads costs a resolve, a read and a compile: `runner validate` loaded 212
 * files (yaml and ajv are ~70 each) and spent about a third of its start doing so.
 *
 * ajv's compiler is a file of its own, dist/bundle/ajv-compiler.cjs (see its build below).
 *
 * Left out, loaded from node_modules when a command first needs them: undici and pino (only the
 * commands that talk to the service load them, see src/cli/connect.ts; pino finds its transports by
 * file path). Chunks stay two levels below the package root, as dist/<folder>/<file>.js modules are,
 * because three modules find package files from their own URL (`../../package.json`, `../../schemas/`).
 *
 *   node scripts/bundle.js        # after tsc; `npm run build` runs both
 */
import { chmod, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

// Chunk names carry a content hash: clear the folder so no chunk of an earlier build lingers.
await rm(`${ROOT}dist/bundle`, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: { runner: 'dist/cli/bin.js' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['undici', 'pino'],
  // yaml and ajv are CommonJS and require Node built-ins; an ES module has no `require` of its own.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
});
await chmod(`${ROOT}dist/bundle/runner.js`, 0o755);

// ajv's compiler as one CommonJS file, for a command that finds a model config's validator missing
// from the cache (src/catalog/config-schema.ts, `requireCompiler`). Compiling is synchronous, so it is
// loaded with `require`, which would otherwise read ajv's ~70 files from node_modules (~40 ms).
await build({
  absWorkingDir: ROOT,
  stdin: {
    contents:
      "module.exports = { Ajv: require('ajv').Ajv, standaloneCode: require('ajv/dist/standalone/index.js').default };",
    resolveDir: ROOT,
    sourcefile: 'ajv-compiler.cjs',
  },
  outfile: 'dist/bundle/ajv-compiler.cjs',
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'linked',
  logLevel: 'warning',
});
