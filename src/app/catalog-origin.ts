import type { CatalogOrigin } from '../plan/catalog-prices.js';
import type { CostOptions } from '../plan/classify-job.js';
import type { CommandContext } from './context.js';

/**
 * `diffData` for a plan whose report `runner diff` may read (`--format json`, `--compare-to`), with
 * where its catalog comes from: `--catalog FILE`, else the simulator or the service, fetched now.
 */
export function diffDataOption(
  ctx: Pick<CommandContext, 'global'>,
  options: Record<string, unknown>,
  now: () => Date = () => new Date(),
): Pick<CostOptions, 'diffData'> {
  if (options.format !== 'json' && typeof options.compareTo !== 'string') return {};
  return { diffData: { catalogOrigin: catalogOrigin(ctx, options, now) } };
}

function catalogOrigin(
  ctx: Pick<CommandContext, 'global'>,
  options: Record<string, unknown>,
  now: () => Date,
): CatalogOrigin {
  if (typeof options.catalog === 'string') return { source: 'file', path: options.catalog };
  return { source: ctx.global.simulate === true ? 'simulator' : 'service', fetchedAt: now().toISOString() };
}
