import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COMMENT_MARKER,
  commentMarker,
  GITHUB_COMMENT_LIMIT,
  renderDiffMarkdown,
} from '../../../src/diff/render-diff-markdown.js';
import { delta, diffOf, FIXTURES, manyJobsManifest, pullRequestDiff } from './cost-diff-fixtures.js';

describe('renderDiffMarkdown', () => {
  it('renders a real-looking pull request (golden)', async () => {
    const text = renderDiffMarkdown(pullRequestDiff(), { fullReport: { path: 'diff.json' } });
    await expect(text).toMatchFileSnapshot(`${FIXTURES}pull-request.md`);
  });

  it('opens with the marker and one summary line: per night and per month, with percentages', () => {
    const lines = renderDiffMarkdown(pullRequestDiff()).split('\n');
    expect(lines[0]).toBe(COMMENT_MARKER);
    expect(lines[3]).toBe(
      '**+276 credits per run (+47.6 %)**, +5,541 per month (+57.1 %) (the 4 of 5 manifests with a schedule): 856 credits per run instead of 580.',
    );
    const nightly = diffOf([
      { ...manyJobsManifest('a.yaml', 62, (i) => `j${i}`), schedule: { label: 'nightly', runsPerMonth: 30 } },
    ]);
    expect(renderDiffMarkdown(nightly).split('\n')[3]).toMatch(
      /^\*\*\+1,240 credits per night \(\+100 %\)\*\*/,
    );
  });

  it('says whose month the headline counts when some manifests have no schedule', () => {
    // Found playing the first pull request: +96 per run, +480 per month, while the month held only
    // the nightly manifest's +16 a run (the text diff said so; the comment did not).
    const nightly = {
      ...manyJobsManifest('nightly.yaml', 1, (i) => `n${i}`),
      schedule: { label: 'nightly', runsPerMonth: 30 },
      perMonth: delta(600, 1_200),
    };
    const video = manyJobsManifest('video.yaml', 4, (i) => `v${i}`);
    const diff = { ...diffOf([nightly, video]), totalPerMonth: delta(600, 1_200) };
    expect(renderDiffMarkdown(diff).split('\n')[3]).toBe(
      '**+100 credits per run (+100 %)**, +600 per month (+100 %) (the 1 of 2 manifests with a schedule): 200 credits per run instead of 100.',
    );
  });

  it('shows a schedule the change added or changed beside the manifest', () => {
    const manifest = {
      ...manyJobsManifest('a.yaml', 2, (i) => `j${i}`),
      schedule: { label: 'nightly', runsPerMonth: 30 },
      scheduleBefore: null,
    };
    expect(renderDiffMarkdown(diffOf([manifest]))).toContain('| a.yaml (no schedule → nightly) |');
    const weekly = { ...manifest, scheduleBefore: { label: 'weekly', runsPerMonth: 4.35 } };
    expect(renderDiffMarkdown(diffOf([weekly]))).toContain('| a.yaml (weekly → nightly) |');
    const { scheduleBefore: _, ...same } = manifest;
    expect(renderDiffMarkdown(diffOf([same]))).toContain('| a.yaml (nightly) |');
  });

  it('says when nothing changed in cost', () => {
    const same = diffOf([]);
    same.total = delta(3260, 3260);
    expect(renderDiffMarkdown(same)).toContain('**No change in cost**: 3,260 credits per run.');
  });

  it('names the guardrails crossed and the price change', () => {
    const text = renderDiffMarkdown(pullRequestDiff());
    expect(text).toContain(
      '> [!WARNING]\n> **A cost guardrail was crossed:**\n> - `--fail-on-increase`: adds 276 credits per run; the limit is 200 per run',
    );
    // A check within its limit is shown too, with the unit it counted in (#33.7).
    expect(text).toContain(
      '\n\nWithin the guardrail `--fail-on-increase-percent`: \\+47.6 % per run; the limit is 50 %.\n',
    );
    expect(text).toContain("one model's price differs");
    expect(text).toContain('| kling\\-2 |'.replace('\\-', '-'));
  });

  it('keeps a tag apart in the marker', () => {
    expect(renderDiffMarkdown(pullRequestDiff(), { tag: 'video' }).split('\n')[0]).toBe(
      '<!-- runner-cost-diff: video -->',
    );
    expect(() => commentMarker('a -->')).toThrow(/tag must match/);
  });

  it('escapes job ids, paths, models and axis values for tables and HTML', () => {
    const hostile = 'a|b <img src=x onerror=alert(1)> `code` *bold* _it_ [link](x) @octocat\nnext&amp;';
    const manifest = manyJobsManifest(`pipelines/${hostile}.yaml`, 1, () => hostile);
    manifest.jobs.changed[0]!.headModel = hostile;
    manifest.byAxisValue = [{ ...delta(0, 5), jobs: { base: 0, head: 1 }, axis: hostile, value: hostile }];
    const text = renderDiffMarkdown(diffOf([manifest]));
    expect(text).not.toContain('<img');
    expect(text).not.toContain('@octocat');
    expect(text).not.toMatch(/[^\\]`code/);
    expect(text).toContain('@&#8203;octocat');
    expect(text).toContain(
      'a\\|b &lt;img src=x onerror=alert\\(1\\)&gt; \\`code\\` \\*bold\\* \\_it\\_ \\[link\\]\\(x\\)',
    );
    expect(text).toContain('&amp;amp;');
    // Each table row stays one row: the newline became a space, and every unescaped pipe is a cell edge.
    const row = text.split('\n').find((line) => line.startsWith('| a\\|b'));
    expect(row?.replace(/\\\|/g, '').split('|').length).toBe(8);
    // Inside <summary> (raw HTML) only entities.
    const summary = text.split('\n').find((line) => line.startsWith('<details><summary>pipelines/'));
    expect(summary).toContain('a&#124;b &#60;img');
    expect(summary).not.toContain('\\');
  });

  it('shows values GFM would link as code spans, and drops bidirectional controls (#32.6)', () => {
    // Before: 7 autolinks (the job id, both models, the axis and its value, a rename) and U+202E kept.
    const url = 'https://evil.example/x|y';
    const www = 'www.evil.example';
    const manifest = manyJobsManifest('pipelines/a.yaml', 1, () => url);
    manifest.jobs.changed[0]!.baseModel = www;
    manifest.jobs.changed[0]!.headModel = 'ftp://m.example';
    manifest.jobs.renamed = [{ from: www, to: 'mailto:x@y.example', credits: delta(4, 4) }];
    manifest.byAxisValue = [
      { ...delta(0, 5), jobs: { base: 0, head: 1 }, axis: 'http://axis.example', value: 'fig\u202egpj.exe' },
    ];
    const text = renderDiffMarkdown(diffOf([manifest]));
    expect(text).toContain('| `https://evil.example/x\\|y` | `www.evil.example` → `ftp://m.example` |');
    expect(text).toContain('| `www.evil.example` | `mailto:x@y.example` |');
    expect(text).toContain('| `http://axis.example` | figgpj.exe |');
    // Outside code spans, nothing a GFM renderer links by itself is left.
    const outside = text.replace(/`[^`]*`/g, '');
    expect(outside).not.toMatch(/(?:https?|ftp|mailto|xmpp):|www\./i);
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/);
  });

  it('cuts whole rows to stay under 65,536 characters, saying how many and where the full report is', () => {
    const big = diffOf([
      manyJobsManifest(
        'pipelines/big.yaml',
        5000,
        (i) => `job-${String(i).padStart(5, '0')}-${'x'.repeat(40)}`,
      ),
      manyJobsManifest('pipelines/small.yaml', 3, (i) => `small-${i}`),
    ]);
    const text = renderDiffMarkdown(big, {
      fullReport: { path: 'diff.json', url: 'https://github.com/o/r/actions/runs/42' },
    });
    expect(text.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(text.length).toBeGreaterThan(GITHUB_COMMENT_LIMIT - 2000);
    expect(text).toMatch(
      /_…and [\d,]+ more changed jobs, left out to fit the comment \(see the full report\)\._/,
    );
    expect(text).toContain(
      'The full diff is `diff.json` ([workflow run](https://github.com/o/r/actions/runs/42)).',
    );
    expect(text).toContain('| job-00000-');
    // The summary, the table of manifests and the closing tags survive the cut.
    expect(text).toContain('| pipelines/small.yaml |');
    expect(text.match(/<details>/g)?.length).toBe(text.match(/<\/details>/g)?.length);
  });

  it('never exceeds the limit, whatever the sizes (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 1, max: 120 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 4000, max: 30000 }),
        (shapes, maxLength) => {
          const manifests = shapes.map(([jobs, idLength], index) =>
            manyJobsManifest(`m${index}.yaml`, jobs, (i) => `${i}-${'é|<'.repeat(idLength)}`),
          );
          const text = renderDiffMarkdown(diffOf(manifests), { maxLength });
          expect(text.length).toBeLessThanOrEqual(maxLength);
          expect(text.match(/<details>/g)?.length ?? 0).toBe(text.match(/<\/details>/g)?.length ?? 0);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe("docs/cost-diffs.md's example comment", () => {
  it('is the golden rendering of the fixture, as the code renders it today', async () => {
    const readme = await readFile(new URL('../../../docs/cost-diffs.md', import.meta.url), 'utf8');
    const start = '<!-- example: cost-diff comment -->\n<!-- prettier-ignore-start -->\n';
    const from = readme.indexOf(start);
    const to = readme.indexOf('<!-- prettier-ignore-end -->', from);
    expect(from).toBeGreaterThan(0);
    expect(readme.slice(from + start.length, to)).toBe(
      renderDiffMarkdown(pullRequestDiff(), { fullReport: { path: 'diff.json' } }),
    );
  });
});
