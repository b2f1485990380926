import type { CatalogOrigin } from '../plan/catalog-prices.js';
import type { CostOptions } from '../plan/classify-job.js';
import type { CommandContext } from './context.js';

/**
 * `diffData` for a plan whose report `runner diff` may read (`--format json`, `--compare-to`), with
 * where its catalog comes from: `--catalog FILE`, else the simulator or the service, fetched now.
 */
export function diffDataOption(
  ctx: Pick<CommandContext, 'global'>,
  options: DiffDataOptions,
  now: () => Date = () => new Date(),
): Pick<CostOptions, 'diffData'> {
  if (!options.diffData) return {};
  const origin = catalogOrigin(ctx, options.catalogFile, now);
  const { catalogFallbackFor } = options;
  return {
    diffData: {
      catalogOrigin:
        catalogFallbackFor === undefined ? origin : { ...origin, fallbackFor: catalogFallbackFor },
    },
  };
}

/** Whether the report is one `runner diff` may read, and the `--catalog` it was priced with. */
export interface DiffDataOptions {
  /** `--format json` or `--compare-to`: keep the parts the diff reads. */
  diffData: boolean;
  catalogFile?: string;
  /** The `--catalog` file that was missing, when `catalogFile` is its `--catalog-fallback`. */
  catalogFallbackFor?: string;
}

function catalogOrigin(
  ctx: Pick<CommandContext, 'global'>,
  catalogFile: string | undefined,
  now: () => Date,
): CatalogOrigin {
  if (catalogFile !== undefined) return { source: 'file', path: catalogFile };
  return { source: ctx.global.simulate === true ? 'simulator' : 'service', fetchedAt: now().toISOString() };
}
