import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../../src/plan/estimate-cost.js';
import { matchQuota } from '../../../src/plan/match-quota.js';
import type { Subscription } from '../../../src/service/types.js';
import { makeCatalog } from '../catalog/fixtures.js';
import { makePlan, plannedJob } from './plan-fixtures.js';

const model = { slug: 'chatgpt-image-sangtao', category: 'image' };
const quotas = (...entries: [string, number][]): Pick<Subscription, 'quotas'> => ({
  quotas: entries.map(([capability, remaining]) => ({ capability, remaining })),
});

describe('matchQuota', () => {
  it('prefers the exact slug, then a name the slug extends, then the category', () => {
    expect(matchQuota(quotas(['image', 1], ['chatgpt-image-sangtao', 2]), model)).toEqual({
      status: 'matched',
      capability: 'chatgpt-image-sangtao',
    });
    expect(matchQuota(quotas(['image', 1], ['ChatGPT-Image', 2]), model)).toEqual({
      status: 'matched',
      capability: 'ChatGPT-Image',
    });
    expect(matchQuota(quotas(['video', 1], ['image', 2]), model)).toEqual({
      status: 'matched',
      capability: 'image',
    });
  });

  it('is none when every quota is plainly for something else', () => {
    expect(matchQuota(quotas(['video', 5]), model)).toEqual({ status: 'none' });
    expect(matchQuota(quotas(['flux-pro', 5]), model, new Set(['flux-pro']))).toEqual({ status: 'none' });
  });

  it('is unclear when a quota has a name the runner cannot place, or two fit equally', () => {
    expect(matchQuota(quotas(['gpt-images', 5]), model)).toEqual({
      status: 'unclear',
      capabilities: ['gpt-images'],
    });
    expect(matchQuota(quotas(['Image', 1], ['image', 2]), model)).toEqual({
      status: 'unclear',
      capabilities: ['Image', 'image'],
    });
  });

  it('takes the most specific name the slug extends', () => {
    expect(matchQuota(quotas(['chatgpt', 1], ['chatgpt-image', 2]), model)).toEqual({
      status: 'matched',
      capability: 'chatgpt-image',
    });
  });
});

describe('estimateCost with quotas named by model', () => {
  const catalog = makeCatalog();
  const plan = makePlan([plannedJob('a'), plannedJob('b'), plannedJob('c')]);
  const balance = { availableCredit: 1 };

  it('covers image jobs from a quota named after the model', () => {
    const report = estimateCost(
      plan,
      catalog,
      { balance, subscription: { tier: 'pro', quotas: [{ capability: 'chatgpt-image', remaining: 2 }] } },
      { maxAttempts: 1 },
    );
    expect(report.subscription.imageJobsCovered).toBe(2);
    expect(report.credits.needed).toBe(2);
    expect(report.subscription.imageQuotaRemaining).toBe(2);
  });

  it('says so in the plan when it cannot tell which quota applies, and does not refuse over it', () => {
    const report = estimateCost(
      plan,
      catalog,
      { balance, subscription: { tier: 'pro', quotas: [{ capability: 'gpt-img', remaining: 10 }] } },
      { maxAttempts: 1 },
    );
    expect(report.subscription.imageJobsCovered).toBe(0);
    expect(report.credits.needed).toBe(6);
    expect(report.subscription.unclearQuota).toBe(6);
    expect(report.verdict.status).toBe('fits');
    expect(report.verdict.message).toContain('needs 0 to 6 credits (unclear subscription quota)');
    expect(report.notes.join('\n')).toMatch(
      /Cannot tell which subscription quota applies to model chatgpt-image-sangtao \(quota capabilities: gpt-img\)/,
    );
  });

  it('still refuses what is short even if the unclear quota applied', () => {
    const report = estimateCost(
      makePlan([
        plannedJob('a'),
        plannedJob('v', { kind: 'stock-video', model: 'render-basic', credits: 5 }),
      ]),
      catalog,
      { balance, subscription: { tier: 'pro', quotas: [{ capability: 'gpt-img', remaining: 10 }] } },
      { maxAttempts: 1 },
    );
    expect(report.verdict.status).toBe('over-available');
  });
});
