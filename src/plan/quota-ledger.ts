import type { Model, Subscription } from '../service/types.js';
import { matchQuota } from './match-quota.js';

/** The quotas of a subscription, taken one unit per covered job as the plan is walked. */
export function createQuotaLedger(subscription: Subscription, catalog: readonly Model[]) {
  const remaining = new Map(subscription.quotas.map((q) => [q.capability, Math.max(0, q.remaining)]));
  const catalogSlugs = new Set(catalog.map((model) => model.slug.toLowerCase()));
  const unclear = new Map<string, string[]>();
  let firstMatched: number | undefined;
  return {
    /** `covered` takes a unit; `unclear`: a quota may apply but which one cannot be told. */
    take(slug: string, category: string | undefined): 'covered' | 'not-covered' | 'unclear' {
      const match = matchQuota(subscription, { slug, category }, catalogSlugs);
      if (match.status === 'unclear') {
        unclear.set(slug, match.capabilities);
        return 'unclear';
      }
      if (match.status === 'none') return 'not-covered';
      const left = remaining.get(match.capability) ?? 0;
      firstMatched ??= left;
      if (left <= 0) return 'not-covered';
      remaining.set(match.capability, left - 1);
      return 'covered';
    },
    firstMatchedRemaining: () => firstMatched,
    unclearNotes: () =>
      [...unclear].map(
        ([slug, capabilities]) =>
          `Cannot tell which subscription quota applies to model ${slug} (quota capabilities: ${capabilities.join(', ')}): its image jobs are counted as paid in credits in "needed", and the verdict does not refuse the run over them; the service decides at create time.`,
      ),
  };
}
