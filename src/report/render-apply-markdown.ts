import type { ExecutionSummary } from '../execute/events.js';
import { escapeCell } from '../plan/render-report.js';
import { statusesOf, type ReportData } from './report-data.js';

/** At most this many problem jobs are listed; a summary page is for reading, the report has them all. */
const MAX_LISTED = 50;

/**
 * The apply summary as GitHub-flavoured Markdown for `GITHUB_STEP_SUMMARY` (the run's summary page):
 * the counts, credits, and a table of every job that did not finish well, with its failureKind and
 * advice. Pure.
 */
export function renderApplyMarkdown(
  summary: ExecutionSummary,
  data: ReportData,
  paths: { report?: string; results: string },
): string {
  const { counts } = summary;
  const lines = [
    `## runner apply: ${escapeCell(data.pipeline)} (run ${escapeCell(data.runId)})`,
    '',
    summary.exitReason === 'ok'
      ? `All ${counts.total} jobs done.`
      : `${counts.done} of ${counts.total} jobs done; exit reason: ${summary.exitReason}.`,
    '',
    '| done | failed | still running | pending | deferred | uncertain | credits this apply | credits in the run |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${counts.done} | ${counts.failed} | ${counts['still-running']} | ${counts.pending + counts.creating} | ${counts.deferred} | ${counts.uncertain} | ${summary.creditsSpent} | ${summary.creditsSpentTotal} |`,
  ];
  if (counts.downloading > 0) {
    lines.push(
      '',
      `**${counts.downloading} paid job(s) whose results were not saved** (downloading): \`runner apply --download-only\` with the same options fetches them, creating nothing.`,
    );
  }
  // Counted from the statuses; entries (made as they are read, each reading a job's state) only
  // until the listed ones are found: none at all when every job is done.
  let problems = 0;
  for (const status of statusesOf(data.entries)) if (status !== 'done') problems++;
  if (problems > 0) {
    lines.push('', '| job | status | failureKind | error | advice |', '| --- | --- | --- | --- | --- |');
    let listed = 0;
    for (const entry of data.entries) {
      if (entry.status === 'done') continue;
      const cells = [entry.id, entry.status, entry.failureKind ?? '', entry.error ?? '', entry.advice ?? ''];
      lines.push(`| ${cells.map(escapeCell).join(' | ')} |`);
      if (++listed === MAX_LISTED) break;
    }
    if (problems > MAX_LISTED) lines.push('', `… and ${problems - MAX_LISTED} more (see the report).`);
  }
  lines.push('');
  if (paths.report !== undefined) lines.push(`Report: \`${paths.report}\``);
  lines.push(`Results index: \`${paths.results}\``, '');
  return lines.join('\n');
}
