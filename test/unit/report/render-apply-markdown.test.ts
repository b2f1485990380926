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
    let reads = 0;
    const data: ReportData = {
      pipeline: 'p',
      runId: 'r',
      manifestFile: 'p.yaml',
      generatedAt: '2026-11-23T00:00:00.000Z',
      axes: [],
      // Made as they are read, like buildReportData's: read once.
      entries: {
        length: entries.length,
        *[Symbol.iterator]() {
          reads++;
          yield* entries;
        },
      },
    };
    const markdown = renderApplyMarkdown(summary, data, { results: 'results.json' });
    const rows = markdown.split('\n').filter((line) => line.startsWith('| job-'));
    const problems = entries.filter((candidate) => candidate.status !== 'done');
    expect(rows).toHaveLength(50);
    expect(rows[0]).toMatch(/^\| job-1 \| failed \|/);
    expect(rows.at(-1)).toMatch(new RegExp(`^\\| ${problems[49]!.id} \\|`));
    expect(markdown).toContain(`… and ${problems.length - 50} more (see the report).`);
    expect(reads).toBe(1);
  });
});
