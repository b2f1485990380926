import { hash } from 'node:crypto';
import { canonicalJson } from '../canonical-json.js';
import { describeCredits, readCredits } from '../service/credit-cost.js';
import type { Model } from '../service/types.js';
import type { PlanCatalog } from './cost-report.js';

/** Where a catalog came from, as the command knows it (the prices are read from the catalog itself). */
export type CatalogOrigin = Pick<PlanCatalog, 'source' | 'path' | 'fallbackFor' | 'fetchedAt'>;

/**
 * The catalog part of a plan report: where it came from, and every model's price rule in plain words
 * with a hash of them, so `runner diff` can tell a price change from a manifest change and name it.
 * A rule is what prices a job (spec 2.4): the model's `creditCost` and its `creditCostMultiplier`
 * params with their defaults; a multiplier option's numeric value is in the job's params, not here.
 */
export function describeCatalog(catalog: readonly Model[], origin: CatalogOrigin): PlanCatalog {
  const prices: Record<string, string> = {};
  for (const model of [...catalog].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))) {
    if (prices[model.slug] === undefined) prices[model.slug] = priceRule(model);
  }
  return {
    source: origin.source,
    ...(origin.path === undefined ? {} : { path: origin.path }),
    ...(origin.fallbackFor === undefined ? {} : { fallbackFor: origin.fallbackFor }),
    ...(origin.fetchedAt === undefined ? {} : { fetchedAt: origin.fetchedAt }),
    pricesHash: hash('sha256', canonicalJson(prices), 'hex'),
    prices,
  };
}

/** e.g. `4 credits per job × numImages (default 1)`; `no usable price ("free")` for an unusable one. */
export function priceRule(model: Pick<Model, 'creditCost' | 'config'>): string {
  const credits = readCredits(model.creditCost);
  if (credits === undefined) return `no usable price (${describeCredits(model.creditCost)})`;
  const factors: string[] = [];
  for (const [name, field] of Object.entries(model.config ?? {})) {
    if (typeof field !== 'object' || field === null) continue;
    const definition = field as { creditCostMultiplier?: unknown; default?: unknown };
    if (definition.creditCostMultiplier !== true) continue;
    const fallback =
      definition.default === undefined ? '' : ` (default ${describeCredits(definition.default)})`;
    factors.push(`× ${name}${fallback}`);
  }
  const base = `${credits} ${credits === 1 ? 'credit' : 'credits'} per job`;
  return factors.length === 0 ? base : `${base} ${factors.join(' ')}`;
}
