import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../../src/plan/estimate-cost.js';
import { MAX_LISTED_JOBS, renderReportMarkdown, renderReportText } from '../../../src/plan/render-report.js';
import { formatTable } from '../../../src/plan/text-table.js';
import { makeCatalog } from '../catalog/fixtures.js';
import { makePlan, plannedJob } from './plan-fixtures.js';

function smallReport() {
  const plan = makePlan(
    [
      plannedJob('latte-square', { credits: 2, matrixValues: { product: 'latte' } }),
      plannedJob('mocha-square', { credits: 2, matrixValues: { product: 'mocha' } }),
      plannedJob('latte-wide-with-a-long-id', {
        model: 'flux-pro',
        credits: 6,
        matrixValues: { product: 'latte' },
      }),
    ],
    10,
  );
  plan.warnings.push({
    severity: 'warning',
    code: 'prompt-too-short',
    message: 'prompt "a cat" is very short',
  });
  return estimateCost(
    plan,
    makeCatalog(),
    {
      balance: {
        freeCredit: 5,
        purchasedCredit: 0,
        lockedCredit: 0,
        availableCredit: 5,
        hasPurchased: false,
      },
      subscription: { tier: 'pro', quotas: [{ capability: 'image', remaining: 1 }] },
    },
    {
      maxAttempts: 3,
      previous: new Map([['mocha-square', { payloadHash: 'hash-mocha-square', status: 'done' as const }]]),
    },
  );
}

describe('renderReportText', () => {
  it('renders a small report as padded tables that fit the width', () => {
    expect(renderReportText(smallReport(), { color: false, width: 60 })).toBe(
      [
        'Plan coffee-ads (pipelines/coffee.yaml)',
        'Jobs: 3 in plan, 2 to run (2 new, 0 changed, 0 failed, 0 deferred, 0 open, 1 done)',
        '',
        'By model',
        '  Model          Cost  Jobs  Credits  To run  Credits to run',
        '  chatgpt-imag…     2     2        4       1               2',
        '  flux-pro          3     1        6       1               6',
        '',
        'By product',
        '  Value  Jobs  Credits  Credits to run',
        '  latte     2        8               8',
        '  mocha     1        2               0',
        '',
        'Jobs (3)',
        '  Job            Model           State               Credits',
        '  latte-square   chatgpt-image…  new (subscription)        2',
        '  mocha-square   chatgpt-image…  done (skip)               2',
        '  latte-wide-w…  flux-pro        new                       6',
        '',
        'Credits',
        '  Total (all jobs)                             10',
        '  To run now                                    8',
        '  Covered by subscription (1 of 2 image jobs)   2',
        '  Needed                                        6',
        '  If all 3 attempts were charged               18',
        '  Available                                     5',
        '  Budget                                       10',
        '',
        'Warnings (1)',
        '  prompt-too-short: prompt "a cat" is very short',
        '',
        'Note: Failed jobs are not charged and only',
        '      GENERATION_TIMEOUT and QUOTA_EXHAUSTED are retried, so',
        '      retries should cost nothing extra; the all-attempts',
        '      figure assumes each of 3 attempts is charged.',
        'Note: The subscription image allowance is assumed to cover',
        '      one image job per unit, in plan order.',
        '',
        'Verdict: Over available credit (needs 6 credits; budget 10; 8 counted against the budget (image jobs the subscription may cover counted as paid); 5 available; short by 1)',
        '',
      ].join('\n'),
    );
  });

  it('uses colors only when asked', () => {
    const report = smallReport();
    expect(renderReportText(report, { color: false })).not.toContain('\x1b[');
    const colored = renderReportText(report, { color: true });
    expect(colored).toContain('\x1b[31mVerdict: Over available credit\x1b[39m');
    expect(colored).toContain('\x1b[1mBy model\x1b[22m');
  });

  it('lists at most the first 50 jobs of a big plan, with subtotals for all', () => {
    const jobs = Array.from({ length: 120 }, (_, i) =>
      plannedJob(`job-${i}`, { matrixValues: { n: i % 3 } }),
    );
    const report = estimateCost(makePlan(jobs), makeCatalog(), {}, { maxAttempts: 1 });
    const text = renderReportText(report, { color: false });
    expect(text).toContain(`Jobs (first ${MAX_LISTED_JOBS} of 120)`);
    expect(text).toContain('  job-49 ');
    expect(text).not.toContain('job-50 ');
    expect(text).toContain('  … and 70 more');
    expect(text).toContain('  2        40       80              80');
    const markdown = renderReportMarkdown(report);
    expect(markdown).toContain('<details><summary>Jobs (first 50 of 120)</summary>');
    expect(markdown).toContain('… and 70 more');
    expect(markdown.match(/^\| job-/gm)).toHaveLength(50);
  });
});

describe('renderReportMarkdown', () => {
  it('renders a small report as GitHub markdown with a verdict line', () => {
    expect(renderReportMarkdown(smallReport())).toBe(
      [
        '## Plan `coffee-ads`',
        '',
        '**Over available credit**: needs 6 credits; budget 10; 8 counted against the budget (image jobs the subscription may cover counted as paid); 5 available; short by 1',
        '',
        'Jobs: 3 in plan, 2 to run (2 new, 0 changed, 0 failed, 0 deferred, 0 open, 1 done)',
        '',
        '| Figure | Credits |',
        '|---|---:|',
        '| Total (all jobs) | 10 |',
        '| To run now | 8 |',
        '| Covered by subscription (1 of 2 image jobs) | 2 |',
        '| Needed | 6 |',
        '| If all 3 attempts were charged | 18 |',
        '| Available | 5 |',
        '| Budget | 10 |',
        '',
        '### By model',
        '',
        '| Model | Cost | Jobs | Credits | To run | Credits to run |',
        '|---|---:|---:|---:|---:|---:|',
        '| chatgpt-image-sangtao | 2 | 2 | 4 | 1 | 2 |',
        '| flux-pro | 3 | 1 | 6 | 1 | 6 |',
        '',
        '### By `product`',
        '',
        '| Value | Jobs | Credits | Credits to run |',
        '|---|---:|---:|---:|',
        '| latte | 2 | 8 | 8 |',
        '| mocha | 1 | 2 | 0 |',
        '',
        '<details><summary>Jobs (3)</summary>',
        '',
        '| Job | Model | State | Credits |',
        '|---|---|---|---:|',
        '| latte-square | chatgpt-image-sangtao | new (subscription) | 2 |',
        '| mocha-square | chatgpt-image-sangtao | done (skip) | 2 |',
        '| latte-wide-with-a-long-id | flux-pro | new | 6 |',
        '',
        '</details>',
        '',
        '### Warnings (1)',
        '',
        '- prompt-too-short: prompt "a cat" is very short',
        '',
        '**Notes**',
        '',
        '- Failed jobs are not charged and only GENERATION_TIMEOUT and QUOTA_EXHAUSTED are retried, so retries should cost nothing extra; the all-attempts figure assumes each of 3 attempts is charged.',
        '- The subscription image allowance is assumed to cover one image job per unit, in plan order.',
        '',
      ].join('\n'),
    );
  });

  it('says Fits and Over budget in words, and escapes table cells', () => {
    const plan = makePlan([plannedJob('a|b', { credits: 5 })], 4);
    expect(renderReportMarkdown(estimateCost(plan, makeCatalog(), {}, { maxAttempts: 1 }))).toContain(
      '**Over budget**: needs 5 credits; budget 4; balance not checked; over budget by 1',
    );
    expect(renderReportMarkdown(estimateCost(plan, makeCatalog(), {}, { maxAttempts: 1 }))).toContain(
      '| a\\|b |',
    );
    const fits = makePlan([plannedJob('a', { credits: 1 })]);
    expect(renderReportMarkdown(estimateCost(fits, makeCatalog(), {}, { maxAttempts: 1 }))).toContain(
      '**Not checked**: needs 1 credits; balance not checked',
    );
  });

  it('keeps ids literal: no emphasis, code or links from *, _, backticks or brackets', () => {
    const plan = makePlan([
      plannedJob('_draft_*v2*`x`[a]', { credits: 1 }),
      plannedJob('hero_latte', { credits: 1 }),
    ]);
    const markdown = renderReportMarkdown(estimateCost(plan, makeCatalog(), {}, { maxAttempts: 1 }));
    expect(markdown).toContain('| \\_draft\\_\\*v2\\*\\`x\\`\\[a\\] |');
    // GitHub leaves underscores inside words alone: no needless escape.
    expect(markdown).toContain('| hero_latte |');
  });
});

describe('formatTable', () => {
  it('pads text left and figures right, shortens text to at least 8 columns and never cuts figures', () => {
    const rows = [['a-very-long-name', '12345']];
    expect(formatTable(['Name', 'N'], rows, { align: ['left', 'right'], maxWidth: 20 })).toEqual([
      'Name               N',
      'a-very-long-…  12345',
    ]);
    expect(formatTable(['Name', 'N'], rows, { align: ['left', 'right'], maxWidth: 12 })).toEqual([
      'Name          N',
      'a-very-…  12345',
    ]);
  });
});
