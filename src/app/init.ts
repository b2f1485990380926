import { access, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadCatalog } from '../catalog/load-catalog.js';
import { preflightTargets } from './preflight.js';
import { scaffoldManifest } from '../catalog/scaffold-manifest.js';
import { isRunnableModel } from '../kinds/index.js';
import { UsageError } from '../errors.js';
import { PIPELINE_SCHEMA_URL } from '../manifest/validate-schema.js';
import type { Model } from '../service/types.js';
import { suggestClosest } from '../suggest.js';
import type { CommandContext } from './context.js';
import type { Outcome } from './outcome.js';

/** What `runner init` is asked. */
export interface InitOptions {
  /** `--model SLUG`: the model the manifest is for (asked for when missing, with the runnable ones). */
  model?: string;
  /** `--catalog FILE`: a saved catalog instead of the service's. */
  catalogFile?: string;
  /** `--force`: overwrite the file if it exists. */
  force: boolean;
}

/**
 * `runner init FILE --model SLUG`: writes a commented manifest for one model, from its catalog form.
 * Refuses to overwrite an existing file unless `--force`.
 */
export async function runInit(
  ctx: CommandContext,
  file: string,
  options: InitOptions,
  fetchCatalog: () => Promise<Model[]>,
): Promise<Outcome> {
  const slug = options.model;
  if (!options.force && (await exists(file))) {
    throw new UsageError(`${file} exists already; pass --force to overwrite it.`);
  }
  const catalog = await readCatalog(options.catalogFile, fetchCatalog);
  // Only models some job kind can run are offered: a scaffold for the others could never be applied.
  const runnable = catalog.filter(isRunnableModel);
  const offer = `Models runner can run: ${listSlugs(runnable)}`;
  if (slug === undefined) throw new UsageError('runner init needs --model SLUG.', { hint: offer });
  const model = catalog.find((entry) => entry.slug === slug);
  if (model === undefined) {
    const nearest = suggestClosest(
      slug,
      runnable.map((entry) => entry.slug),
    );
    throw new UsageError(`Model "${slug}" is not in the catalog.`, {
      hint: nearest === undefined ? offer : `Did you mean "${nearest}"?`,
    });
  }
  if (!isRunnableModel(model)) {
    throw new UsageError(
      `Model "${slug}" (category ${model.category}) has no endpoint that runner can run.`,
      {
        hint: offer,
      },
    );
  }
  const schemaPath = relative(dirname(resolve(file)), fileURLToPath(PIPELINE_SCHEMA_URL))
    .split(sep)
    .join('/');
  const text = scaffoldManifest({ model, name: pipelineName(file), schemaPath });
  // A new manifest often starts a new folder (`runner init pipelines/nightly.yaml`): make it, as the
  // user asked for a file there, instead of failing on the file with the folder's ENOENT. Checked
  // first like every path a command writes (a file in the way, /proc where mkdir never ends).
  await preflightTargets([{ path: file, kind: 'file', what: 'manifest' }], ctx.cwd, 0o777);
  await writeFile(file, text, options.force ? {} : { flag: 'wx' });
  ctx.output.err(
    `Wrote ${file} for ${model.slug}. Next: \`runner validate ${file}\`, then \`runner plan ${file}\`.`,
  );
  return 'done';
}

/** The catalog from `--catalog FILE`, else from the service (`fetchCatalog`). */
export async function readCatalog(
  catalogFile: string | undefined,
  fetchCatalog: () => Promise<Model[]>,
): Promise<Model[]> {
  if (catalogFile !== undefined) return loadCatalog(catalogFile);
  return fetchCatalog();
}

/** A pipeline `name` from a file name: the schema's pattern (letters, digits, `.`, `_`, `-`). */
function pipelineName(file: string): string {
  const stem = basename(file, extname(file))
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '');
  return stem === '' ? 'pipeline' : stem.slice(0, 100);
}

function listSlugs(catalog: readonly Model[]): string {
  return catalog.map((model) => model.slug).join(', ');
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch {
    return false;
  }
}
