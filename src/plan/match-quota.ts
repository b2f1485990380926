import { MODEL_CATEGORIES, type Subscription } from '../service/types.js';

/** Which subscription quota pays for a model's jobs. */
export type QuotaMatch =
  | { status: 'matched'; capability: string }
  /** No quota names the model or its category: its jobs are paid in credits. */
  | { status: 'none' }
  /** Quotas exist but the runner cannot tell which applies (several fit equally, or none clearly). */
  | { status: 'unclear'; capabilities: string[] };

/**
 * Finds the quota of `model` (api-notes: a quota's `capability` may name the model, e.g.
 * `chatgpt-image`, rather than the category `image`). Best first: the exact slug, then a name the
 * slug extends at a `-` (`chatgpt-image` for `chatgpt-image-sangtao`), then the model's category.
 * Compared case-insensitively. Two quotas that fit equally well, or quotas none of which fits while
 * none is a known category either, are `unclear`: the plan says so instead of guessing.
 */
export function matchQuota(
  subscription: Pick<Subscription, 'quotas'>,
  model: { slug: string; category: string | undefined },
  /** Slugs of the catalog's models: a quota named after another model is plainly not this one's. */
  catalogSlugs: ReadonlySet<string> = new Set(),
): QuotaMatch {
  const slug = model.slug.toLowerCase();
  const category = model.category?.toLowerCase();
  const rank = (capability: string): number | undefined => {
    const name = capability.trim().toLowerCase();
    if (name === slug) return 0;
    // A longer name the slug extends is the more specific one: `chatgpt-image` before `chatgpt`.
    if (name !== '' && slug.startsWith(`${name}-`)) return 2 - name.length / (slug.length + 1);
    if (category !== undefined && name === category) return 2;
    return undefined;
  };
  const ranked = subscription.quotas
    .map((quota) => ({ capability: quota.capability, rank: rank(quota.capability) }))
    .filter((entry): entry is { capability: string; rank: number } => entry.rank !== undefined);
  if (ranked.length === 0) {
    // Quotas only for other categories or other models: this model's jobs are simply not covered.
    // A capability that is neither a known category nor a known model might be this model's under
    // another name: that is unclear, not "none".
    const unknownNames = subscription.quotas
      .map((quota) => quota.capability)
      .filter((capability) => {
        const name = capability.trim().toLowerCase();
        return !KNOWN_NAMES.has(name) && !catalogSlugs.has(name);
      });
    return unknownNames.length === 0 ? { status: 'none' } : { status: 'unclear', capabilities: unknownNames };
  }
  const best = Math.min(...ranked.map((entry) => entry.rank));
  const top = ranked.filter((entry) => entry.rank === best);
  const distinct = [...new Set(top.map((entry) => entry.capability))];
  if (distinct.length > 1) return { status: 'unclear', capabilities: distinct };
  return { status: 'matched', capability: distinct[0] ?? '' };
}

/** Spec 2.3's categories: capability names that name a category, never a model. */
const KNOWN_NAMES: ReadonlySet<string> = new Set(MODEL_CATEGORIES);
