import { formatCredits } from '../../plan/credits.js';
import type { ExecutionSummary } from '../../execute/events.js';
import type { Style } from '../../text-style.js';
import type { ApplySummaryFacts } from '../../app/apply-effects.js';
import { notDoneOutside, type OutsideThisApply } from '../../app/outside-apply.js';

/** The closing report of `runner apply`: counts, credits, where results are, and what to do next. */
export function renderApplySummary(
  summary: ExecutionSummary,
  context: ApplySummaryFacts,
  style: Style,
): string {
  const { counts } = summary;
  const lines: string[] = [];
  const headline =
    summary.exitReason === 'ok'
      ? style.green(`✓ All ${counts.total} jobs done.`)
      : `${counts.done} of ${counts.total} jobs done.`;
  lines.push(headline);
  const rest: [string, number][] = [
    ['paid but results not saved', counts.downloading],
    ['failed', counts.failed],
    ['still running', counts['still-running']],
    ['pending', counts.pending],
    ['sent, answer lost', counts.creating],
    ['deferred', counts.deferred],
    ['uncertain', counts.uncertain],
    ['downloads failed', counts.downloadFailures],
  ];
  const nonZero = rest.filter(([, count]) => count > 0).map(([label, count]) => `${label} ${count}`);
  if (nonZero.length > 0) lines.push(nonZero.join(', '));
  const outside =
    context.outside === undefined ? undefined : outsideLine(context.outside, context, counts.total);
  if (outside !== undefined) lines.push(outside);
  lines.push(
    // A run is a run id, which may take several applies: say which figure is which.
    `Credits spent: ${formatCredits(summary.creditsSpent)} by this apply, ${formatCredits(summary.creditsSpentTotal)} in run ${context.runId} so far.`,
  );
  if (context.outputDir !== undefined && counts.done > 0) lines.push(`Results: ${context.outputDir}`);
  const stateNote = context.temporaryState === true ? ' (temporary: the in-process simulator is gone)' : '';
  lines.push(style.dim(`State: ${context.stateDir}${stateNote}`));
  const { again, resend, status } = context.hints;
  if (context.temporaryStateRoot !== undefined) {
    lines.push(
      style.dim(`See this run with \`${status}\` (or \`runs\`, \`report\`, with the same --state-dir).`),
    );
  }
  const next: string[] = [];
  if (
    context.temporaryState !== true &&
    counts['still-running'] + counts.pending + counts.creating + counts.deferred > 0
  ) {
    next.push(`Run \`${again}\` again to continue: finished jobs are skipped and nothing is paid twice.`);
  }
  if (counts.downloading > 0) {
    next.push(
      `\`${again} --download-only\` fetches the results not saved (it creates and pays nothing); result links expire 7 days after a job completes.`,
    );
  }
  if (counts.uncertain > 0) {
    next.push(`Uncertain jobs may already exist and be paid for; \`${resend}\` sends them again.`);
  }
  if (counts.failed > 0) {
    next.push(`See \`${status}\` for each failure and its advice.`);
  }
  for (const line of next) lines.push(style.dim(line));
  return lines.join('\n');
}

/** In `runner status`'s order and words: the line points there. */
const OUTSIDE_STATUSES = [
  'downloading',
  'failed',
  'open',
  'pending',
  'creating',
  'deferred',
  'uncertain',
] as const;

/**
 * The run's jobs a targeted apply left out that are not done: its headline and exit code judge only
 * its own jobs (docs/cli-reference.md "Exit codes"), so the summary says what else the run still has.
 */
function outsideLine(
  outside: OutsideThisApply,
  context: ApplySummaryFacts,
  judged: number,
): string | undefined {
  const notDone = notDoneOutside(outside);
  if (notDone === 0) return undefined;
  const byStatus = OUTSIDE_STATUSES.filter((status) => outside[status] > 0)
    .map((status) => `${status} ${outside[status]}`)
    .join(', ');
  const jobs = (count: number) => `${count} job${count === 1 ? '' : 's'}`;
  return (
    `Not done outside this apply: ${notDone} of run ${context.runId}'s ${jobs(outside.jobs).replace(' job', ' other job')} (${byStatus}). ` +
    `The exit code judges only this apply's ${jobs(judged)}; \`${context.hints.status}\` shows the whole run.`
  );
}
