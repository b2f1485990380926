import { adviseJob, type AdviceCommands } from '../../execute/job-advice.js';
import type { JobStatusView } from '../../state/index.js';
import type { Style } from '../../text-style.js';
import { readableUtcTime } from '../../readable-time.js';

/** Longest error text shown per job in the text view; `--json` has it whole (as journaled). */
const MAX_ERROR_CHARS = 400;

/**
 * The text view's section on jobs that need attention (#7.5): for each failed, uncertain or deferred
 * job its error text, then what to do about it (src/execute/job-advice.ts).
 */
export function renderStatusProblems(
  jobs: readonly JobStatusView[],
  style: Style,
  commands: AdviceCommands & { downloadOnly: string },
): string[] {
  const lines: string[] = [];
  for (const job of jobs) {
    if (job.status === 'downloading') {
      lines.push(...describeOwed(job, style, commands.downloadOnly));
      continue;
    }
    if (job.status !== 'failed' && job.status !== 'uncertain' && job.status !== 'deferred') continue;
    const label = job.failureKind === undefined ? job.status : `${job.status}, ${job.failureKind}`;
    const error = job.error === undefined ? '' : `: ${oneLine(job.error)}`;
    const line = `  ${job.id} (${label})${error}`;
    lines.push(job.status === 'failed' ? style.red(line) : style.yellow(line));
    // The advice the report and the results index give too (#33.11), with this run's commands.
    const advice = adviseJob(job, commands);
    if (advice !== undefined) lines.push(style.dim(`    ${advice}`));
  }
  return lines.length === 0 ? [] : ['', style.bold('Needs attention:'), ...lines];
}

/** A done job whose results are not all saved: what is owed, until when, and how to fetch it (#20.8). */
function describeOwed(job: JobStatusView, style: Style, downloadCommand: string): string[] {
  const until =
    job.resultsExpireAt === undefined ? '' : `; the links expire ${readableUtcTime(job.resultsExpireAt)}`;
  return [
    style.yellow(`  ${job.id} (downloading): paid, ${job.resultsOwed ?? 0} result(s) not saved${until}`),
    style.dim(
      `    \`${downloadCommand}\` (with the run's --output, if it had one) fetches them; it creates and pays nothing.`,
    ),
  ];
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_ERROR_CHARS ? `${flat.slice(0, MAX_ERROR_CHARS)}… (see --json)` : flat;
}
