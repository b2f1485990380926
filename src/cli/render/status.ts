import { formatCredits } from '../../plan/credits.js';
import { formatTable } from '../../plan/text-table.js';
import type { StatusView } from '../../state/index.js';
import type { Style } from '../../text-style.js';
import { renderStatusProblems } from './status-problems.js';

/**
 * `runner status` as a table, then each job that needs attention with its error and advice;
 * `commands` are the apply commands, with the run's flags, that re-send uncertain jobs and fetch
 * owed results.
 */
export function renderStatus(
  view: StatusView,
  style: Style,
  width = 120,
  commands: StatusCommands = {
    resend: 'runner apply MANIFEST --resend-uncertain',
    retryFailed: 'runner apply MANIFEST --retry-failed',
    downloadOnly: 'runner apply MANIFEST --download-only',
    resume: 'runner apply MANIFEST',
  },
): string {
  if (view.jobs.length === 0) return 'No jobs.';
  // Several machines on one run (PostgreSQL): which one did each job.
  const machines = view.jobs.some((job) => job.machine !== undefined);
  const rows = view.jobs.map((job) => [
    job.id,
    job.status,
    String(job.attempts),
    job.jobId ?? '',
    job.failureKind ?? (job.serviceStatus !== undefined && job.status === 'open' ? job.serviceStatus : ''),
    formatCredits(job.creditCost),
    [
      ...job.files.map((file) => file.file),
      ...(job.resultsOwed === undefined ? [] : [`(${job.resultsOwed} not saved)`]),
    ].join(', '),
    ...(machines ? [job.machine ?? ''] : []),
  ]);
  // Colors go on whole lines after padding, so escape codes never upset the column widths.
  const [header = '', ...lines] = formatTable(
    ['Job', 'Status', 'Tries', 'Job id', 'Detail', 'Credits', 'Files', ...(machines ? ['Machine'] : [])],
    rows,
    {
      align: [
        'left',
        'left',
        'right',
        'left',
        'left',
        'right',
        'left',
        ...(machines ? ['left' as const] : []),
      ],
      maxWidth: width,
    },
  );
  const colored = lines.map((line, index) => colorByStatus(line, view.jobs[index]?.status ?? '', style));
  const { totals } = view;
  const counts = (
    ['done', 'downloading', 'open', 'creating', 'pending', 'failed', 'deferred', 'uncertain'] as const
  )
    .filter((status) => totals[status] > 0)
    .map((status) => `${status} ${totals[status]}`)
    .join(', ');
  return [
    style.bold(header),
    ...colored,
    '',
    `${totals.jobs} jobs: ${counts}. Credits spent: ${formatCredits(totals.creditsSpent)}.`,
    ...(machines ? [`Machines: ${describeMachines(view)}.`] : []),
    ...renderStatusProblems(view.jobs, style, commands),
    ...renderNotFinished(view, style, commands.resume),
  ].join('\n');
}

/** The apply commands, with the run's flags, that status names. */
export interface StatusCommands {
  resend: string;
  retryFailed: string;
  downloadOnly: string;
  /** The apply that continues the run. */
  resume: string;
}

/**
 * Jobs paid and still open, or not started: what a killed apply leaves (a machine gone mid-run). The
 * table shows them and status exits 1, but nothing said what to do; `runs` and the report did. Status
 * cannot tell whether an apply is running the run now (it takes no lock), so it says so; nor which jobs
 * the killed apply targeted, so it says that continuing also pays for the jobs not started.
 */
function renderNotFinished(view: StatusView, style: Style, resume: string): string[] {
  const { open, creating, pending } = view.totals;
  if (open + creating + pending === 0) return [];
  const parts = [
    ...(open === 0 ? [] : [`${open} paid job${open === 1 ? '' : 's'} open`]),
    ...(creating === 0 ? [] : [`${creating} being created`]),
    ...(pending === 0 ? [] : [`${pending} not started`]),
  ];
  const followed =
    open + creating === 0
      ? 'done jobs are skipped'
      : 'done jobs are skipped and open ones followed to their end';
  const created =
    pending === 0
      ? ''
      : `, and the ${pending} not started are created and paid for (\`runner plan\` with the same flags shows what they cost; add --only to keep to some)`;
  return [
    '',
    `${style.bold('Not finished:')} ${parts.join(', ')}. Unless an apply is running it now, \`${resume}\` continues the run: ${followed}, nothing is paid twice${created}.`,
  ];
}

function colorByStatus(line: string, status: string, style: Style): string {
  if (status === 'failed') return style.red(line);
  if (status === 'uncertain' || status === 'deferred' || status === 'downloading') return style.yellow(line);
  return line;
}

/** Each machine with the number of jobs it worked on last, most first. */
function describeMachines(view: StatusView): string {
  const counts = new Map<string, number>();
  for (const job of view.jobs)
    if (job.machine !== undefined) counts.set(job.machine, (counts.get(job.machine) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([machine, jobs]) => `${machine} (${jobs} job${jobs === 1 ? '' : 's'})`)
    .join(', ');
}
