import { describe, expect, it } from 'vitest';
import type { ExecutionSummary } from '../../../src/execute/events.js';
import { renderApplyMarkdown } from '../../../src/report/render-apply-markdown.js';
import type { ReportData, ReportEntry } from '../../../src/report/report-data.js';

function entry(id: string, status: ReportEntry['status']): ReportEntry {
  return {
    id,
    kind: 'image',
    model: 'm',
    params: {},
    matrix: {},
    status,
    attempts: 1,
    credits: 0,
    files: [],
  };
}

const summary = {
  counts: { total: 60, done: 7, failed: 53 },
  creditsSpent: 7,
  creditsSpentTotal: 7,
  exitReason: 'failed',
  jobs: [],
} as unknown as ExecutionSummary;

describe('renderApplyMarkdown', () => {
  it('lists the first 50 jobs that did not finish well, in order, and counts the rest', () => {
    const entries = Array.from({ length: 60 }, (_, i) => entry(`job-${i}`, i % 9 === 0 ? 'done' : 'failed'));
    const { data, made } = lazily(entries);
    const markdown = renderApplyMarkdown(summary, data, { results: 'results.json' });
    const rows = markdown.split('\n').filter((line) => line.startsWith('| job-'));
    const problems = entries.filter((candidate) => candidate.status !== 'done');
    expect(rows).toHaveLength(50);
    expect(rows[0]).toMatch(/^\| job-1 \| failed \|/);
    expect(rows.at(-1)).toMatch(new RegExp(`^\\| ${problems[49]!.id} \\|`));
    expect(markdown).toContain(`… and ${problems.length - 50} more (see the report).`);
    // Counted from the statuses; entries made only up to the 50th listed.
    expect(made()).toBe(entries.indexOf(problems[49]!) + 1);
  });

  it('makes no entry when every job is done', () => {
    const { data, made } = lazily(Array.from({ length: 5 }, (_, i) => entry(`job-${i}`, 'done')));
    const markdown = renderApplyMarkdown(
      { ...summary, exitReason: 'ok', counts: { ...summary.counts, total: 5, done: 5, failed: 0 } },
      data,
      { results: 'results.json' },
    );
    expect(markdown).toContain('All 5 jobs done.');
    expect(markdown).not.toContain('| job |');
    expect(made()).toBe(0);
  });

  it('says how many paid jobs have results not saved, and how to fetch them (#20.8)', () => {
    const { data } = lazily(Array.from({ length: 3 }, (_, i) => entry(`job-${i}`, 'done')));
    const markdown = renderApplyMarkdown(
      { ...summary, counts: { ...summary.counts, total: 3, done: 1, downloading: 2, failed: 0 } },
      data,
      { results: 'results.json' },
    );
    expect(markdown).toContain('1 of 3 jobs done; exit reason: failed.');
    expect(markdown).toContain('**2 paid job(s) whose results were not saved** (downloading)');
    expect(markdown).toContain('`runner apply --download-only`');
  });
});

/** Entries made as they are read, with their statuses given apart, like buildReportData's. */
function lazily(entries: ReportEntry[]): { data: ReportData; made: () => number } {
  let made = 0;
  const data: ReportData = {
    pipeline: 'p',
    runId: 'r',
    manifestFile: 'p.yaml',
    generatedAt: '2026-11-23T00:00:00.000Z',
    axes: [],
    entries: {
      length: entries.length,
      *[Symbol.iterator]() {
        for (const item of entries) {
          made++;
          yield item;
        }
      },
      statuses: () => entries.map((item) => item.status),
    },
  };
  return { data, made: () => made };
}
