import type { JobCost, VerdictStatus } from './cost-report.js';
import type { CostReportView, JobListView } from './job-table.js';
import { JOB_STATE_CLASSES } from './cost-report.js';
import { formatCredits } from './credits.js';
import { createStyle } from '../text-style.js';
import { renderPlanDiff } from './payload-diff.js';
import { renderPayloadsText } from './render-payloads.js';
import { formatTable, type Align } from './text-table.js';

/** Jobs listed one by one in text and markdown; the rest are summarised ("… and N more"). */
export const MAX_LISTED_JOBS = 50;
/** Warnings listed in text and markdown; the rest are counted. */
export const MAX_LISTED_WARNINGS = 10;

const VERDICT_LABELS: Record<VerdictStatus, string> = {
  fits: 'Fits',
  'over-available': 'Over available credit',
  'over-budget': 'Over budget',
};

/**
 * The verdict's headline. "Fits" only when the balance was checked: an `--offline` plan (or one that
 * could not read the balance) is "Within budget" at most, or "Not checked" with no budget either,
 * so nobody reads a cost report that saw no balance as a promise that the run is paid for.
 */
function verdictLabel(verdict: CostReportView['verdict']): string {
  if (verdict.status !== 'fits' || verdict.checked.balance) return VERDICT_LABELS[verdict.status];
  return verdict.checked.budget ? 'Within budget' : 'Not checked';
}

export interface TextRenderOptions {
  /** Use ANSI colors (a TTY without NO_COLOR). */
  color: boolean;
  /** Terminal columns; long job ids and model names are shortened to fit. @default 100 */
  width?: number;
}

/** The cost report as a terminal table. Colors only when `options.color`. */
export function renderReportText(report: CostReportView, options: TextRenderOptions): string {
  const width = options.width ?? 100;
  const style = createStyle(options.color);
  const paint = (code: 'bold' | 'dim' | 'red' | 'green' | 'yellow', text: string): string =>
    style[code](text);
  const table = (headers: string[], rows: string[][], align: Align[]): string[] => {
    // Ids and model names give way first; the job state column is short enough to keep whole.
    const shrinkable = headers.map((header) => header !== 'State');
    const [head = '', ...body] = formatTable(headers, rows, { align, maxWidth: width - 2, shrinkable });
    return [`  ${paint('bold', head)}`, ...body.map((line) => `  ${line}`)];
  };

  const lines = [
    `${paint('bold', 'Plan')} ${report.pipeline} (${report.manifestFile})`,
    `Jobs: ${describeJobCounts(report)}`,
    '',
    paint('bold', 'By model'),
    ...table(...modelTable(report)),
  ];
  for (const axis of report.axes) {
    lines.push('', paint('bold', `By ${axis.axis}`), ...table(...axisTable(axis)));
  }
  const jobs = jobTable(report);
  lines.push('', paint('bold', jobsHeading(report)), ...table(jobs[0], jobs[1], jobs[2]));
  if (report.jobList.length > MAX_LISTED_JOBS)
    lines.push(`  … and ${report.jobList.length - MAX_LISTED_JOBS} more`);
  const changes = listedChanges(report);
  if (changes.length > 0)
    lines.push('', paint('bold', changesHeading(report)), ...changes.map((l) => `  ${l}`));
  if (report.payloads !== undefined) {
    const text = renderPayloadsText(report.payloads).trimEnd();
    lines.push(
      '',
      paint('bold', `Payloads (${report.payloads.length})`),
      ...text.split('\n').map((l) => `  ${l}`),
    );
  }
  const figures = creditFigures(report);
  lines.push(
    '',
    paint('bold', 'Credits'),
    ...formatTable(['', ''], figures, { align: ['left', 'right'] })
      .slice(1)
      .map((l) => `  ${l}`),
  );

  const warnings = listedWarnings(report);
  if (warnings.length > 0) {
    lines.push('', paint('yellow', `Warnings (${report.warnings.length})`), ...warnings.map((w) => `  ${w}`));
  }
  if (report.notes.length > 0) {
    lines.push(
      '',
      ...report.notes.flatMap((note) =>
        // Prose still wraps when the width is unlimited (not a terminal): only tables are never cut.
        wrapText(`Note: ${note}`, Number.isFinite(width) ? width : 100, '      ').map((l) => paint('dim', l)),
      ),
    );
  }
  const verdictColor = report.verdict.status === 'fits' ? 'green' : 'red';
  lines.push(
    '',
    `${paint(verdictColor, `Verdict: ${verdictLabel(report.verdict)}`)} (${report.verdict.message})`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The report in two lines, for a terminal when the report itself went to a file (`plan --format json
 * --out F`): the jobs, the credits per run (and per month with a schedule), the verdict.
 */
export function renderReportSummary(report: CostReportView): string {
  const month =
    report.creditsPerMonth === undefined
      ? ''
      : `, ${formatCredits(report.creditsPerMonth)} per month${report.schedule == null ? '' : ` (${report.schedule.label})`}`;
  return [
    `Plan ${report.pipeline} (${report.manifestFile}): ${report.jobs.total} ${report.jobs.total === 1 ? 'job' : 'jobs'} in plan, ${report.jobs.toRun} to run; ${formatCredits(report.credits.total)} credits per run${month}`,
    `Verdict: ${verdictLabel(report.verdict)} (${report.verdict.message})`,
  ].join('\n');
}

/** The cost report as GitHub-flavoured markdown (PR comments, `GITHUB_STEP_SUMMARY`). */
export function renderReportMarkdown(report: CostReportView): string {
  const table = (headers: string[], rows: string[][], align: Align[]): string[] => [
    `| ${headers.map(escapeCell).join(' | ')} |`,
    `|${align.map((a) => (a === 'right' ? '---:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${row.map(escapeCell).join(' | ')} |`),
  ];
  const lines = [
    `## Plan \`${report.pipeline}\``,
    '',
    `**${verdictLabel(report.verdict)}**: ${report.verdict.message}`,
    '',
    `Jobs: ${describeJobCounts(report)}`,
    '',
    ...table(['Figure', 'Credits'], creditFigures(report), ['left', 'right']),
    '',
    '### By model',
    '',
    ...table(...modelTable(report)),
  ];
  for (const axis of report.axes) lines.push('', `### By \`${axis.axis}\``, '', ...table(...axisTable(axis)));
  const jobs = jobTable(report);
  lines.push(
    '',
    `<details><summary>${jobsHeading(report)}</summary>`,
    '',
    ...table(jobs[0], jobs[1], jobs[2]),
  );
  if (report.jobList.length > MAX_LISTED_JOBS)
    lines.push('', `… and ${report.jobList.length - MAX_LISTED_JOBS} more`);
  lines.push('', '</details>');
  const changes = listedChanges(report);
  if (changes.length > 0) lines.push('', `### ${changesHeading(report)}`, '', '```diff', ...changes, '```');
  if (report.payloads !== undefined) {
    const text = renderPayloadsText(report.payloads).trimEnd();
    lines.push(
      '',
      `<details><summary>Payloads (${report.payloads.length})</summary>`,
      '',
      '```yaml',
      text,
      '```',
      '',
      '</details>',
    );
  }
  const warnings = listedWarnings(report);
  if (warnings.length > 0) {
    lines.push(
      '',
      `### Warnings (${report.warnings.length})`,
      '',
      ...warnings.map((w) => `- ${escapeInline(w)}`),
    );
  }
  if (report.notes.length > 0)
    lines.push('', '**Notes**', '', ...report.notes.map((note) => `- ${escapeInline(note)}`));
  return `${lines.join('\n')}\n`;
}

/** The diff lines of the first {@link MAX_LISTED_JOBS} changed jobs. */
function listedChanges(report: CostReportView): string[] {
  return renderPlanDiff((report.changes ?? []).slice(0, MAX_LISTED_JOBS));
}

function changesHeading(report: CostReportView): string {
  const count = report.changes?.length ?? 0;
  return count > MAX_LISTED_JOBS
    ? `Changed since the last run (first ${MAX_LISTED_JOBS} of ${count})`
    : `Changed since the last run (${count})`;
}

function describeJobCounts(report: CostReportView): string {
  const states = JOB_STATE_CLASSES.map((state) => `${report.jobs.byState[state]} ${state}`).join(', ');
  return `${report.jobs.total} in plan, ${report.jobs.toRun} to run (${states})`;
}

function jobsHeading(report: CostReportView): string {
  const total = report.jobList.length;
  return total > MAX_LISTED_JOBS ? `Jobs (first ${MAX_LISTED_JOBS} of ${total})` : `Jobs (${total})`;
}

function modelTable(report: CostReportView): [string[], string[][], Align[]] {
  return [
    ['Model', 'Cost', 'Jobs', 'Credits', 'To run', 'Credits to run'],
    report.models.map((m) => [
      m.model,
      m.creditCost === null ? '?' : formatCredits(m.creditCost),
      String(m.jobs),
      formatCredits(m.credits),
      String(m.jobsToRun),
      formatCredits(m.creditsToRun),
    ]),
    ['left', 'right', 'right', 'right', 'right', 'right'],
  ];
}

function axisTable(axis: CostReportView['axes'][number]): [string[], string[][], Align[]] {
  return [
    ['Value', 'Jobs', 'Credits', 'Credits to run'],
    axis.values.map((v) => [
      v.value,
      String(v.jobs),
      formatCredits(v.credits),
      formatCredits(v.creditsToRun),
    ]),
    ['left', 'right', 'right', 'right'],
  ];
}

function jobTable(report: CostReportView): [string[], string[][], Align[]] {
  return [
    ['Job', 'Model', 'State', 'Credits'],
    firstJobs(report.jobList, MAX_LISTED_JOBS).map((job) => [
      job.id,
      job.model,
      job.coveredBySubscription
        ? `${job.state} (subscription)`
        : job.toRun
          ? job.state
          : `${job.state} (skip)`,
      formatCredits(job.credits),
    ]),
    ['left', 'left', 'left', 'right'],
  ];
}

/** The first `count` jobs of a job list (read in order; the rest is never built). */
function firstJobs(jobList: JobListView, count: number): JobCost[] {
  const jobs: JobCost[] = [];
  if (count <= 0) return jobs;
  for (const job of jobList) {
    jobs.push(job);
    if (jobs.length >= count) break;
  }
  return jobs;
}

function creditFigures(report: CostReportView): string[][] {
  const { credits, subscription, balance } = report;
  const rows = [['Total (all jobs)', formatCredits(credits.total)]];
  if (report.schedule != null && report.creditsPerMonth !== undefined) {
    const { label, runsPerMonth } = report.schedule;
    const runs = label.endsWith('per month') ? label : `${label}, ${runsPerMonth} runs`;
    rows.push([`Per month (${runs})`, formatCredits(report.creditsPerMonth)]);
  }
  rows.push(['To run now', formatCredits(credits.toRun)]);
  if (subscription.status === 'known') {
    rows.push([
      `Covered by subscription (${subscription.imageJobsCovered} of ${subscription.imageJobsToRun} image jobs)`,
      formatCredits(credits.coveredBySubscription),
    ]);
  } else {
    rows.push(['Covered by subscription (subscription unknown)', '0']);
  }
  rows.push(['Needed', formatCredits(credits.needed)]);
  rows.push([
    `If all ${credits.maxAttempts} attempts were charged`,
    formatCredits(credits.allAttemptsCharged),
  ]);
  rows.push([
    'Available',
    balance.availableCredit === undefined ? 'not checked' : formatCredits(balance.availableCredit),
  ]);
  if (report.budget !== undefined) rows.push(['Budget', formatCredits(report.budget)]);
  // The verdict weighs the lower of the two caps: show both, or a reader sees "budget 5" beside 100.
  if (report.maxCredits !== undefined) rows.push(['--max-credits', formatCredits(report.maxCredits)]);
  return rows;
}

function listedWarnings(report: CostReportView): string[] {
  const shown = report.warnings.slice(0, MAX_LISTED_WARNINGS);
  const more = report.warnings.length - shown.length;
  return more > 0 ? [...shown, `… and ${more} more`] : shown;
}

/** Word-wraps a paragraph to `width` columns; continuation lines start with `indent`. */
function wrapText(text: string, width: number, indent: string): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

export function escapeCell(text: string): string {
  return escapeInline(text).replace(/\|/g, '\\|');
}

/**
 * Ids, slugs and messages are text, not Markdown: `*`, backticks, brackets and `_` at a word's edge
 * stay literal (GitHub ignores `_` inside words, so GENERATION_TIMEOUT needs no escape).
 */
function escapeInline(text: string): string {
  return text
    .replace(/[\\`*[\]]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g, '\\$&')
    .replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))
    .replace(/\r?\n/g, ' ');
}
