#!/usr/bin/env node
/**
 * Compiles the runner's own JSON Schemas into validator modules (ajv standalone code) under
 * src/generated/, so no command compiles a schema, nor ajv's meta-schema, when it starts. The schemas
 * stay the one source: `schemas/*.json` and the schema objects of two import-free TypeScript modules;
 * the generated files are derived from them, committed, and checked by a test
 * (test/unit/generated/compile-schemas.test.ts) that fails when they are stale.
 *
 *   node scripts/compile-schemas.js                 # rewrite src/generated/*.ts (npm run schemas)
 *   node scripts/compile-schemas.js --check         # exit 1 naming every stale or missing file
 *   node scripts/compile-schemas.js --check --dir D # check the files in D instead of src/generated
 *
 * The ajv options of each target are the ones the runner compiled with before (they shape the errors
 * and so the messages: `verbose` keeps `data` and `parentSchema` on each error).
 */
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GENERATED_DIR = join(ROOT, 'src/generated');

const API_SCHEMAS = [
  'envelope',
  'model-list',
  'balance',
  'subscription',
  'job-creation',
  'job-record',
  'presign',
];

const JOURNAL_RECORD_TYPES = [
  'journal',
  'run',
  'intent',
  'created',
  'create-failed',
  'status',
  'completed',
  'failed',
  'deferred',
  'downloaded',
  'uncertain',
  'interrupted',
];

/** What to generate: file name, the schemas it exports (export name → loader) and the ajv options. */
const TARGETS = [
  {
    file: 'pipeline-validator.ts',
    sources: ['schemas/pipeline.schema.json'],
    exports: { validate: () => readJson('schemas/pipeline.schema.json') },
    options: { allErrors: true, strict: true, allowUnionTypes: true, verbose: true },
  },
  {
    file: 'catalog-model-validator.ts',
    sources: ['src/catalog/catalog-model-schema.ts'],
    exports: { validate: () => readTsExport('src/catalog/catalog-model-schema.ts', 'CATALOG_MODEL_SCHEMA') },
    options: { strict: true, allowUnionTypes: true },
  },
  {
    file: 'image-job-validator.ts',
    sources: ['src/catalog/image-job-schema.ts'],
    exports: { validate: () => readTsExport('src/catalog/image-job-schema.ts', 'IMAGE_JOB_SCHEMA') },
    options: { allErrors: true, strict: true, verbose: true },
  },
  {
    // The runtime Ajv of model configs skips its own meta-schema check and runs this one instead.
    file: 'meta-schema-validator.ts',
    sources: ['ajv/dist/refs/json-schema-draft-07.json', 'src/catalog/config-ajv-options.ts'],
    metaSchema: 'http://json-schema.org/draft-07/schema',
    options: () => readTsExport('src/catalog/config-ajv-options.ts', 'CONFIG_AJV_OPTIONS'),
  },
  {
    file: 'api-validators.ts',
    sources: API_SCHEMAS.map((name) => `schemas/api/${name}.schema.json`),
    exports: Object.fromEntries(
      API_SCHEMAS.map((name) => [camelCase(name), () => readJson(`schemas/api/${name}.schema.json`)]),
    ),
    options: { allErrors: false, strict: true, allowUnionTypes: true },
  },
  {
    file: 'review-decisions-validator.ts',
    sources: ['schemas/review-decisions.schema.json'],
    exports: { validate: () => readJson('schemas/review-decisions.schema.json') },
    options: { allErrors: true, strict: true, verbose: true },
  },
  {
    // One validator per journal record type: a replay checks each line against its own type's only.
    file: 'journal-record-validators.ts',
    sources: ['schemas/state/journal-records.schema.json'],
    exports: Object.fromEntries(
      JOURNAL_RECORD_TYPES.map((type) => [
        camelCase(type),
        async () => {
          const { $schema, definitions } = await readJson('schemas/state/journal-records.schema.json');
          return { $schema, ...definitions[type] };
        },
      ]),
    ),
    options: { allErrors: false, strict: true },
  },
];

function camelCase(name) {
  return name.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
}

async function readJson(path) {
  return JSON.parse(await readFile(join(ROOT, path), 'utf8'));
}

/** Loads one exported object of a TypeScript module that imports nothing (transpiled, not type-checked). */
async function readTsExport(path, name) {
  const { outputText } = ts.transpileModule(await readFile(join(ROOT, path), 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 },
  });
  if (/^\s*import\s/m.test(outputText)) throw new Error(`${path} must not import anything`);
  const url = `data:text/javascript;base64,${Buffer.from(outputText).toString('base64')}`;
  const module = await import(url);
  if (module[name] === undefined) throw new Error(`${path} does not export ${name}`);
  return module[name];
}

/**
 * The module text of one target: a fresh ajv (so names like `validate10` are stable), one export per
 * schema; or, for `metaSchema`, ajv's own compilation of its meta-schema (with the options ajv uses
 * for meta-schemas: those of the instance, formats not validated).
 */
async function renderTarget(target) {
  const options = typeof target.options === 'function' ? await target.options() : target.options;
  const ajv = new Ajv({ ...options, code: { source: true, esm: true, lines: true } });
  const refs = {};
  if (target.metaSchema !== undefined) refs.validate = target.metaSchema;
  for (const [exportName, load] of Object.entries(target.exports ?? {})) {
    ajv.addSchema(await load(), exportName);
    refs[exportName] = exportName;
  }
  const code = standaloneCode(ajv, refs);
  // ajv's ESM output still loads its small runtime helpers (ucs2length, equal) with `require`.
  const preamble = code.includes('require(')
    ? "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n"
    : '';
  return [
    '// @ts-nocheck',
    '/* eslint-disable */',
    `// Generated by scripts/compile-schemas.js from ${target.sources.join(', ')}.`,
    '// Do not edit: change the schema, then run `npm run schemas`.',
    preamble + code.trim(),
    '',
  ].join('\n');
}

/** Every generated file: name → text. */
export async function renderGeneratedFiles() {
  const files = new Map();
  for (const target of TARGETS) files.set(target.file, await renderTarget(target));
  return files;
}

async function main(argv) {
  const check = argv.includes('--check');
  const dirIndex = argv.indexOf('--dir');
  const dir = dirIndex === -1 ? GENERATED_DIR : argv[dirIndex + 1];
  const files = await renderGeneratedFiles();
  if (check) {
    const stale = [];
    for (const [name, text] of files) {
      const current = await readFile(join(dir, name), 'utf8').catch(() => undefined);
      if (current !== text) stale.push(join(dir, name));
    }
    if (stale.length > 0) {
      process.stderr.write(
        `Generated validators are stale or missing: ${stale.join(', ')}\nRun \`npm run schemas\` and commit the result.\n`,
      );
      return 1;
    }
    process.stdout.write(`${files.size} generated validator modules are up to date.\n`);
    return 0;
  }
  await mkdir(dir, { recursive: true });
  for (const [name, text] of files) await writeFile(join(dir, name), text);
  process.stdout.write(`Wrote ${[...files.keys()].map((name) => join(dir, name)).join(', ')}\n`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
